/**
 * How a polled source (ZK, Hikvision) records a poll that failed or worked, the same for every
 * kind: in the terminals ledger (what the status shows), and in the log, said once when trouble
 * starts or changes (repeats at debug: a terminal away for a weekend does not fill the log) and
 * once, at info, when the terminal works again.
 */
import type { TerminalRecord } from '../journal/types.js';
import type { Logger } from '../util/logger.js';
import type { SourceDeps, TerminalLedger } from './types.js';

/** A fault in words: what is wrong, and what to try (the same words in `punchgate check` and the status). */
export interface TerminalFault {
  cause: string;
  fix: string;
}

/**
 * The error of a poll that failed only because another process holds the journal
 * (isBusyJournalError). Such a failure is not the terminal's: the status says it once, as "journal
 * busy"; the terminal's state stays as its last real poll left it (the next poll reads the log
 * again, nothing is lost), and no ticks are skipped for it (noBackoff).
 */
export const BUSY_JOURNAL_POLL_ERROR =
  'journal busy (another process holds it): the log is read again at the next poll';

/**
 * Whether a fault's cause leads with its terminal's own name ("reception refuses the password",
 * "gate cannot be polled: no password ..."): trouble only the admin can fix (the status's alerts
 * say it at once), and words that must not get the name put before them again.
 */
export function causeNamesTerminal(terminal: string, cause: string): boolean {
  return cause.startsWith(`${terminal} `);
}

/**
 * A cause after its terminal's name, as the log and the status's terminal lines say it: "gate-1:
 * no answer from ...", or as it is where it leads with the name (it said "front-door: front-door
 * refuses the password").
 */
export function namedCause(terminal: string, cause: string): string {
  return causeNamesTerminal(terminal, cause) ? cause : `${terminal}: ${cause}`;
}

/**
 * A cause after a line that already names its terminal ("reception: FAILED: ..."): without the
 * name where it leads with it (`punchgate poll` said "reception: FAILED: reception refuses the password").
 */
export function causeAfterName(terminal: string, cause: string): string {
  return causeNamesTerminal(terminal, cause) ? cause.slice(terminal.length + 1) : cause;
}

/** How the fixes name a terminal's settings: `terminals[2]` (its place in the config), else by name. */
export function configKeyOf(deps: Pick<SourceDeps, 'configKey'>, terminal: string): string {
  return deps.configKey?.(terminal) ?? `terminals[${terminal}]`;
}

/**
 * Records a failed poll in the ledger: reached but gone wrong (a dropped reply, a short download)
 * is online with the fault; unreachable is offline since the first failure. `detail` (the protocol's
 * own words) goes to the log at debug only. Never throws: a ledger that cannot be written is logged.
 */
export function recordFailedPoll(
  ledger: TerminalLedger,
  log: Logger,
  terminal: string,
  poll: { reached: boolean; startedAt: number; fault: TerminalFault; detail?: string },
): void {
  try {
    const prev = ledger.get(terminal);
    ledger.update(terminal, {
      online: poll.reached,
      lastPollAt: poll.startedAt,
      lastError: poll.fault.cause,
      lastErrorFix: poll.fault.fix,
      // Since the first failure, but never after this one: a wall-clock time kept across restarts,
      // left ahead by a box clock set back (while running or stopped) it held the "cannot be
      // reached" alert away for the step's length (found by an adversarial trial).
      offlineSince: poll.reached ? null : Math.min(prev?.offlineSince ?? poll.startedAt, poll.startedAt),
    });
    const detail = poll.detail && poll.detail !== poll.fault.cause ? { detail: poll.detail } : {};
    if (prev?.lastError !== poll.fault.cause)
      log.warn(detail, `terminal ${namedCause(terminal, poll.fault.cause)}: ${poll.fault.fix}`);
    else log.debug(detail, `still: terminal ${namedCause(terminal, poll.fault.cause)}`);
  } catch (ledgerError) {
    log.error({ err: String(ledgerError) }, 'could not record the failed poll in the journal');
  }
}

/** A poll worked: a terminal that was in trouble (`prev`, its record before) says so at info. */
export function noteWorking(prev: TerminalRecord | undefined, log: Logger, terminal: string, now: number): void {
  if (!prev || (prev.lastError === null && prev.online)) return;
  if (prev.lastPollAt === null) return; // its first poll: nothing to be back from
  // Never reached before (a wrong address mended): not "again", nothing it was back from.
  if (prev.lastSuccessAt === null) {
    const trying = prev.offlineSince !== null ? `, after ${minutes(now - prev.offlineSince)} of failed polls` : '';
    log.info(`terminal ${terminal} answers for the first time${trying}: its polls work`);
    return;
  }
  const away = prev.offlineSince !== null ? ` after ${minutes(now - prev.offlineSince)} away` : '';
  log.info(`terminal ${terminal} answers again${away}: its polls work`);
}

/** "12 min", "3 h 5 min", "45 s". */
export function minutes(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 120 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
