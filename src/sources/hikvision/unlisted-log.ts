import type { Logger } from '../../util/logger.js';
import { LogBudget } from '../../util/log-budget.js';
import { unlistedPass, unlistedWords, type AccessEvent } from './events.js';

/** One line in this long at most, per link of a terminal: a busy door in an unlisted mode writes no line a pass. */
export const UNLISTED_LOG_WINDOW_MS = 10 * 60_000;

/**
 * The passes the terminal's `minors` leaves out (unlistedPass) that a link brings one at a time
 * (the alert stream, HTTP Listening): counted by minor and said in the poll's words, the first at
 * once, then at most one line a window with the count since the line before. They once went
 * without a word (only the next poll said them); the polls still count them as they read the
 * terminal's log.
 */
export class UnlistedPassLog {
  private counts: Record<number, number> = {};
  private readonly budget: LogBudget;

  constructor(
    private readonly minors: ReadonlySet<number>,
    /** How the line names what brought them, e.g. "terminal reception, alert stream". */
    private readonly from: string,
  ) {
    this.budget = new LogBudget(1, UNLISTED_LOG_WINDOW_MS);
  }

  /** Counts `e` if it is such a pass; says the counts when a line is due. `now`: any clock in ms. */
  note(e: AccessEvent, now: number, log: Logger): void {
    if (!unlistedPass(e, this.minors)) return;
    this.counts[e.minor] = (this.counts[e.minor] ?? 0) + 1;
    if (this.budget.take(now) === undefined) return;
    const unlisted = this.counts;
    this.counts = {};
    log.warn({ unlisted }, `${this.from}: ${unlistedWords(unlisted)} (said at most every 10 minutes)`);
  }
}
