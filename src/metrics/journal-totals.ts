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
export class JournalTotals {
  private readonly journaled = new Map<string, number>();
  private readonly delivered = new Map<string, number>();
  private maxId: number;

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
    for (const r of this.queries.journaledSince(this.maxId)) {
      add(this.journaled, r.terminal, r.count);
      this.maxId = Math.max(this.maxId, r.maxId);
    }
    return this.journaled;
  }

  deliveredByTerminal(): ReadonlyMap<string, number> {
    return this.delivered;
  }

  /** Counts the punches of a settle that ended delivered (or duplicate, which is delivered too). */
  settled(outcomes: readonly PunchOutcome[]): void {
    const ids = outcomes.filter((o) => o.kind === 'delivered' || o.kind === 'duplicate').map((o) => o.id);
    for (const r of this.queries.deliveredAmongIds(ids)) add(this.delivered, r.terminal, r.count);
  }
}

function add(m: Map<string, number>, key: string, n: number): void {
  m.set(key, (m.get(key) ?? 0) + n);
}
