import type { JournalQueries } from '../journal/queries.js';
import type { PunchOutcome } from '../journal/types.js';

/**
 * Punches journalled and delivered per terminal, as the journal knows them: read from the counts
 * the journal keeps when the daemon starts (so the totals survive a restart), then kept up to date
 * cheaply. Journalled: the rows added since (row ids only grow), read when asked, so punches
 * another process wrote (`punchgate import`) count too. Delivered: the punches this daemon's
 * deliverer settled as delivered, looked up in the journal after each settle. (A `punchgate
 * flush` run beside the daemon is counted at the next start.) Delivered punches past the
 * retention are pruned from the journal, so after a restart the totals count what it still holds.
 */
/** Row ids counted per step at most (about a millisecond on a 2-core box). */
export const CATCH_UP_ROWS = 2000;

export class JournalTotals {
  private readonly journaled = new Map<string, number>();
  private readonly delivered = new Map<string, number>();
  private maxId: number;
  /** Punches settled as delivered, not looked up yet (countSettled). */
  private settledIds: number[] = [];

  constructor(private readonly queries: JournalQueries) {
    const start = queries.terminalTotals();
    for (const r of start.rows) {
      this.journaled.set(r.terminal, r.journaled);
      this.delivered.set(r.terminal, r.delivered);
    }
    this.maxId = start.maxId;
  }

  /** Journalled punches per terminal, including those added since the last call. */
  journaledByTerminal(): ReadonlyMap<string, number> {
    while (this.catchUp()) {
      // each step a bounded range of rows
    }
    return this.journaled;
  }

  /**
   * Counts at most `rows` of the rows journalled since the last count (one bounded query: a
   * range of row ids); true while more are left. Counting 38,000 new rows at once (5 s of 40
   * push terminals) held the event loop some 20 ms per scrape; the daemon now counts a step at a
   * time between scrapes (StatusWeb), so a scrape has little left to count.
   */
  catchUp(rows = CATCH_UP_ROWS): boolean {
    const newest = this.queries.maxPunchId();
    if (newest <= this.maxId) return false;
    const upTo = Math.min(newest, this.maxId + rows);
    for (const r of this.queries.journaledSince(this.maxId, upTo)) add(this.journaled, r.terminal, r.count);
    // Every row up to `upTo` is counted: ids only grow, and a row is seen once it is committed.
    this.maxId = upTo;
    return upTo < newest;
  }

  /** Delivered punches per terminal, including the settles not yet looked up. */
  deliveredByTerminal(): ReadonlyMap<string, number> {
    while (this.countSettled()) {
      // each step a bounded number of ids
    }
    return this.delivered;
  }

  /**
   * Takes note of the punches of a settle that may have ended delivered (or duplicate, which is
   * delivered too); they are looked up in the journal later (countSettled), not in the settle's
   * own turn of the event loop, which delivery's journal work already makes long enough.
   */
  settled(outcomes: readonly PunchOutcome[]): void {
    for (const o of outcomes) if (o.kind === 'delivered' || o.kind === 'duplicate') this.settledIds.push(o.id);
  }

  /**
   * Looks up at most `ids` of the settled punches noted (one query): those that ended delivered
   * are counted. True while more are left. A delivered punch stays delivered until the
   * retention removes it, days later: looking it up a second later counts the same.
   */
  countSettled(ids = CATCH_UP_ROWS): boolean {
    if (this.settledIds.length === 0) return false;
    const batch = this.settledIds.splice(0, ids);
    for (const r of this.queries.deliveredAmongIds(batch)) add(this.delivered, r.terminal, r.count);
    return this.settledIds.length > 0;
  }
}

function add(m: Map<string, number>, key: string, n: number): void {
  m.set(key, (m.get(key) ?? 0) + n);
}
