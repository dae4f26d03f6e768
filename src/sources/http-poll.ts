/**
 * The steps of a poll that the HTTP terminals (Dahua, Hikvision) take alike: the client kept for
 * the password it was made with, the password the terminal last accepted, the serial number
 * checked against the ledger's (a swapped device), the read committed to the journal with its
 * cursor, a read stopped at a bound, and the start of a failed poll (stopped, journal busy).
 * What differs (endpoints, cursors, the words of a refusal or a fault) stays in each source.
 */
import { isBusyJournalError } from '../journal/errors.js';
import type { IngestResult, TerminalRecord } from '../journal/types.js';
import type { Punch } from '../punch.js';
import type { Logger } from '../util/logger.js';
import { journalReadAgain } from './journal-synced-apart.js';
import { clearRefusal } from './password-refusals.js';
import { BUSY_JOURNAL_POLL_ERROR, noteWorking, recordFailedPoll, type TerminalFault } from './poll-outcome.js';
import type { SourceDeps, TerminalLedger } from './types.js';

/** What a poll's read of the terminal's log counts and says (Dahua records, Hikvision events). */
export interface ReadCounts {
  pages: number;
  rows: number;
  malformed: number;
  added: number;
  duplicates: number;
  quarantined: number;
  /** Numbered or dated implausibly: read (journalled), never the cursor's. */
  implausible: number;
  /** The first of them, in words. */
  implausibleExample?: string;
  /**
   * Reading stopped before the device's answer ended, in words: a bound of the poll (pages,
   * deadline: the rest is read at the next poll) or a fault of the device (a search it does not
   * end, an answer too large). What was read before is journalled.
   */
  stopped?: string;
  /** The stop was the device's fault (not merely a large log read in several polls). */
  deviceFault?: boolean;
}

/** The client of a terminal, kept between polls (its connection, its Digest nonce) for one password. */
export class ClientForPassword<C> {
  private held: { client: C; password: string } | undefined;

  /** The client made for `password`; one made for another password is let go (handed to `retire`). */
  current(password: string, retire: (client: C) => void): C | undefined {
    if (this.held && this.held.password !== password) {
      retire(this.held.client);
      this.held = undefined;
    }
    return this.held?.client;
  }

  keep(password: string, client: C): C {
    this.held = { client, password };
    return client;
  }

  /** Lets the client go (to be closed or destroyed by the caller): the next poll makes a new one. */
  take(): C | undefined {
    const c = this.held?.client;
    this.held = undefined;
    return c;
  }
}

/**
 * The password the terminal last accepted (in memory only). A terminal's second channel (an event
 * stream) opens only while the password in the config is the accepted one, so that a wrong password
 * is tried by one poll at a time, never by the stream as well.
 */
export class AcceptedPassword {
  private value: string | undefined;

  constructor(private readonly readPassword: () => { password: string }) {}

  /** The terminal took `password`: its past refusals are forgotten. Says whether there were any. */
  accepted(password: string, deps: Pick<SourceDeps, 'state'>, terminal: string): boolean {
    this.value = password;
    return clearRefusal(deps.state, terminal);
  }

  refused(): void {
    this.value = undefined;
  }

  /** The terminal accepted the password it now has in the config. */
  holds(): boolean {
    return this.value !== undefined && passwordIfReadable(this.readPassword)?.password === this.value;
  }
}

/** The password as now configured, or undefined when it cannot be read (the file went away: a refusal's wait applies). */
export function passwordIfReadable<P>(read: () => P): P | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** A terminal's event stream waits this long for a poll to prove the password before it looks again. */
const STREAM_WAITS_FOR_POLL_MS = 5000;

/**
 * When a terminal's event stream may (re)connect (undefined: now): only after a poll proved the
 * password it now has, so that a wrong password is tried by one poll at a time, and outside a
 * refusal's wait (the poller's password rule). With no password to read, it looks again in a
 * minute (the poll says why).
 */
export function streamMayConnectAt(
  now: number,
  poller: { passwordAccepted(): boolean; passwordIfAllowed(): { pw: unknown } | { waitUntil: number } },
): number | undefined {
  if (!poller.passwordAccepted()) return now + STREAM_WAITS_FOR_POLL_MS;
  const allowed = passwordIfReadable(() => poller.passwordIfAllowed());
  if (!allowed) return now + 60_000;
  return 'waitUntil' in allowed ? allowed.waitUntil : undefined;
}

/** Said at info when a password refused before works again. */
export const passwordWorksAgain = (terminal: string): string => `terminal ${terminal}: the password is accepted again`;

/**
 * The serial number the terminal answered with, against the one the ledger knows: another one is a
 * swapped device (or a changed address), said and noted in the ledger. Returns the ledger's record
 * from before the poll.
 */
export function checkSerial(
  deps: Pick<SourceDeps, 'ledger' | 'clock'>,
  log: Logger,
  terminal: string,
  serial: string,
): TerminalRecord | undefined {
  const known = deps.ledger.get(terminal);
  if (known?.serial && serial && known.serial !== serial) {
    log.warn(
      { was: known.serial, now: serial },
      'terminal answers with another serial number: device swapped or address changed; its punches are kept apart',
    );
    deps.ledger.update(terminal, { previousSerial: known.serial, serialChangedAt: deps.clock.now() });
  }
  return known;
}

/**
 * Journals a page of punches and the read position after it in one transaction, its disk sync
 * beside the event loop (journalReadAgain: lost together at a power cut, read again together);
 * punches "in the future" are judged against the terminal's own clock as read in this poll
 * (`skewSeconds`).
 */
export function cursorCommit<C>(
  deps: Pick<SourceDeps, 'sink' | 'onPunches'>,
  at: { terminal: string; timezone: string | undefined; key: string; skewSeconds: number | null },
  format: (cursor: C) => string,
): (punches: Punch[], cursor: C) => IngestResult {
  return (punches, cursor) => {
    const r = journalReadAgain(deps.sink, punches, {
      timezone: at.timezone,
      currentSkewSeconds: at.skewSeconds ?? undefined,
      state: { terminal: at.terminal, key: at.key, value: format(cursor) },
    });
    if (r.added > 0) deps.onPunches?.(r.added);
    return r;
  };
}

/**
 * A read that stopped at a bound did not finish: not healthy (an alert names the terminal), but
 * what it read is journalled, and a large log read over several polls is no unreachable terminal
 * (no backoff unless the device is at fault). A read that finished: a terminal in trouble before
 * says it works again.
 */
export function settleRead(
  result: { ok: boolean; stopped?: string; error?: string; noBackoff?: boolean },
  read: Pick<ReadCounts, 'stopped' | 'deviceFault' | 'rows' | 'pages'>,
  known: TerminalRecord | undefined,
  log: Logger,
  terminal: string,
  now: number,
): void {
  result.ok = !read.stopped;
  if (read.stopped) {
    result.stopped = read.stopped;
    result.error = read.stopped;
    result.noBackoff = !read.deviceFault;
    log.warn({ err: read.stopped, rows: read.rows, pages: read.pages }, 'poll stopped at a bound');
  } else noteWorking(known, log, terminal, now);
}

/** The ledger fields of a poll that reached the terminal (the source adds its own: skew, firmware...). */
export function reachedFields(
  serial: string,
  known: TerminalRecord | undefined,
  startedAt: number,
  stopped: string | undefined,
  now: number,
) {
  return {
    serial: serial || known?.serial || '',
    online: true,
    lastPollAt: startedAt,
    ...(stopped ? {} : { lastSuccessAt: now }),
    offlineSince: null,
    lastError: stopped ?? null,
  };
}

/**
 * The failures of a poll that are not the terminal's: stopped by the shutdown (whatever was
 * journalled stays, the terminal's state is unchanged), or the journal busy with another process
 * (no backoff: the log is read again at the next poll). Returns true when it was one of them.
 */
export function notTheTerminals(
  e: unknown,
  signal: AbortSignal | undefined,
  result: { error?: string; noBackoff?: boolean },
  log: Logger,
): boolean {
  if (signal?.aborted) {
    result.error = 'stopped';
    return true;
  }
  if (!isBusyJournalError(e)) return false;
  result.error = BUSY_JOURNAL_POLL_ERROR;
  result.noBackoff = true;
  log.warn({ err: result.error }, 'poll failed');
  return true;
}

/** Records the terminal's failed poll in the ledger (see recordFailedPoll), `e` in the log at debug. */
export function recordPollFault(
  ledger: TerminalLedger,
  log: Logger,
  terminal: string,
  poll: { reached: boolean; startedAt: number; fault: TerminalFault },
  e: unknown,
): void {
  recordFailedPoll(ledger, log, terminal, { ...poll, detail: e instanceof Error ? e.message : String(e) });
}

/** A poll that ended early on the device's fault (an answer too large, a deadline): a status note. */
export function endedEarly(what: string): TerminalFault {
  return {
    cause: `a poll ended early: ${what}; what was read before is kept, and every poll stops there again`,
    fix: 'restart the terminal, and update its firmware if it goes on',
  };
}
