import type { IngestResult } from '../journal/types.js';
import type { Logger } from '../util/logger.js';

/**
 * The info lines that let a site admin follow punches from a terminal into the journal, in the
 * same words for every kind of terminal. They say how many, never which codes (the codes are in
 * `punchgate punches`; a real-time punch's code is logged at debug). `log` carries the terminal's
 * name as a field already (a child logger).
 */

const punches = (n: number) => `${n} ${n === 1 ? 'punch' : 'punches'}`;

/** "2 already journalled, 1 quarantined" (zero counts left out). */
function notes(r: IngestResult, withNew: boolean): string {
  const parts: string[] = [];
  if (withNew) parts.push(`${r.added} new`);
  if (r.duplicates) parts.push(`${r.duplicates} already journalled`);
  if (r.quarantined) parts.push(`${r.quarantined} quarantined (implausible time)`);
  if (r.refused) parts.push(`${r.refused} refused (unreadable code)`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

const fields = (r: IngestResult) => ({
  added: r.added,
  duplicates: r.duplicates,
  quarantined: r.quarantined,
  ...(r.refused ? { refused: r.refused } : {}),
});

/**
 * After a poll: `terminal gate-1: 35 new punches (2 already journalled)`. A poll that found
 * nothing new says so at debug, so that an idle site does not fill the journal of systemd.
 */
export function logPolled(log: Logger, terminal: string, r: IngestResult): void {
  const news = r.added + r.quarantined + (r.refused ?? 0);
  if (news === 0) {
    log.debug(fields(r), `terminal ${terminal}: no new punches${notes(r, false)}`);
    return;
  }
  log.info(fields(r), `terminal ${terminal}: ${r.added} new ${r.added === 1 ? 'punch' : 'punches'}${notes(r, false)}`);
}

/** A real-time event (ZK, Hikvision's alert stream) or a serial line: `terminal gate-1: received 1 real-time punch (1 new)`. */
export function logReceived(log: Logger, terminal: string, received: number, r: IngestResult): void {
  log.info(fields(r), `terminal ${terminal}: received ${punches(received)} in real time${notes(r, true)}`);
}

/** One upload of a push terminal: `terminal lobby pushed 12 punches (12 new)`. */
export function logPushed(log: Logger, terminal: string, pushed: number, r: IngestResult): void {
  log.info(fields(r), `terminal ${terminal} pushed ${punches(pushed)}${notes(r, true)}`);
}
