/**
 * How a polled source (ZK, Hikvision) records a poll that failed, the same for every kind: in the
 * terminals ledger, and with the rule that a busy journal is not the terminal's trouble.
 */
import type { Logger } from '../util/logger.js';
import type { TerminalLedger } from './types.js';

/**
 * The error of a poll that failed only because another process holds the journal
 * (isBusyJournalError). Such a failure is not the terminal's: the status says it once, as "journal
 * busy"; the terminal's state stays as its last real poll left it (the next poll reads the log
 * again, nothing is lost), and no ticks are skipped for it (noBackoff).
 */
export const BUSY_JOURNAL_POLL_ERROR =
  'journal busy (another process holds it): the log is read again at the next poll';

/**
 * Records a failed poll in the ledger: reached but gone wrong (a dropped reply, a short download)
 * is online with the error; unreachable is offline since the first failure. Never throws: a ledger
 * that cannot be written is logged.
 */
export function recordFailedPoll(
  ledger: TerminalLedger,
  log: Logger,
  terminal: string,
  poll: { reached: boolean; startedAt: number; error: string },
): void {
  try {
    const prev = ledger.get(terminal);
    ledger.update(terminal, {
      online: poll.reached,
      lastPollAt: poll.startedAt,
      lastError: poll.error,
      offlineSince: poll.reached ? null : (prev?.offlineSince ?? poll.startedAt),
    });
  } catch (ledgerError) {
    log.error({ err: String(ledgerError) }, 'could not record the failed poll in the journal');
  }
}
