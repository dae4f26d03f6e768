import type { Database } from 'better-sqlite3';
import { noPunchCounts, type JournalCounts, type PunchState } from './types.js';

/**
 * The journal's punches counted per terminal and state, kept in small tables (punch_counts, and
 * punch_totals per state) by
 * the same transactions that add, move and delete punches, so that the status, /metrics and
 * `check` read a few hundred rows instead of counting a year of delivered punches (a count over
 * 1,000,000 rows blocks the daemon's one thread for a large part of a second on a small box).
 *
 * Kept in code, not by triggers: a trigger costs every inserted punch (about a fifth of ingest's
 * time, measured), while the code adds one row per terminal and state to each transaction.
 * Every write of punches.state goes through Journal or JournalQueries and passes its moves here
 * (a test compares the table with a count of the punches after each kind of write); the file
 * operations outside them (restore) count again with recountPunches.
 *
 * Also the partial indexes the status reads through (never the whole table): refused, dead and
 * quarantined punches (the alerts), and the undelivered punches of unknown badge cards.
 */

/**
 * The WHERE of punches_refused as this migration made it (part of it: never change). A later
 * migration made the index again with REFUSED_TERM (state-terms.ts), which queries repeat.
 */
const REFUSED_TERM_13 = `state IN ('rejected', 'dead', 'quarantined')`;

/**
 * The WHERE of punches_unknown_cards: undelivered punches whose code is an unknown badge card
 * (UNKNOWN_CARD_PREFIX, "card:"; ';' is the character after ':'). Part of a migration: never change.
 */
export const UNKNOWN_CARDS_TERM = `biometric_code >= 'card:' AND biometric_code < 'card;' AND state <> 'delivered'`;

/** Migration: the counts (from the punches as they are) and the two partial indexes (see above). */
export const PUNCH_COUNTS_MIGRATION = `
  CREATE TABLE punch_counts (
    terminal TEXT    NOT NULL,
    state    TEXT    NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (terminal, state)
  ) WITHOUT ROWID;
  INSERT INTO punch_counts (terminal, state, n) SELECT terminal, state, count(*) FROM punches GROUP BY terminal, state;
  -- The same summed per state (what the status reads every interval: six rows).
  CREATE TABLE punch_totals (
    state TEXT    NOT NULL PRIMARY KEY,
    n     INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO punch_totals (state, n) SELECT state, sum(n) FROM punch_counts GROUP BY state;
  CREATE INDEX punches_refused ON punches (state, last_message, biometric_code) WHERE ${REFUSED_TERM_13};
  CREATE INDEX punches_unknown_cards ON punches (terminal, biometric_code) WHERE ${UNKNOWN_CARDS_TERM};
`;

/** Punches moved between states (or added, or deleted) by one transaction, per terminal. */
export class CountMoves {
  private readonly moves = new Map<string, Map<PunchState, number>>();

  add(terminal: string, state: PunchState, n = 1): void {
    let m = this.moves.get(terminal);
    if (!m) this.moves.set(terminal, (m = new Map()));
    m.set(state, (m.get(state) ?? 0) + n);
  }

  move(terminal: string, from: PunchState, to: PunchState, n = 1): void {
    if (from === to) return;
    this.add(terminal, from, -n);
    this.add(terminal, to, n);
  }

  *entries(): IterableIterator<[string, PunchState, number]> {
    for (const [terminal, m] of this.moves) for (const [state, n] of m) if (n !== 0) yield [terminal, state, n];
  }
}

export class PunchCounts {
  private readonly stmt;

  constructor(db: Database) {
    this.stmt = {
      add: db.prepare(`INSERT INTO punch_counts (terminal, state, n) VALUES (?, ?, ?)
          ON CONFLICT (terminal, state) DO UPDATE SET n = n + excluded.n`),
      total: db.prepare(`INSERT INTO punch_totals (state, n) VALUES (?, ?)
          ON CONFLICT (state) DO UPDATE SET n = n + excluded.n`),
      byState: db.prepare(`SELECT state, n FROM punch_totals`),
      all: db.prepare(`SELECT terminal, state, n FROM punch_counts WHERE n <> 0`),
      ofTerminal: db.prepare(`SELECT state, n FROM punch_counts WHERE terminal = ? AND n <> 0`),
      // Delivered, or never meant for the first sink (not_routed): nothing waits.
      waiting: db.prepare(`SELECT terminal, state, n FROM punch_counts
          WHERE n > 0 AND state NOT IN ('delivered', 'not_routed') AND terminal NOT IN (SELECT value FROM json_each(?))`),
    };
  }

  /** Inside the transaction that made the moves. */
  apply(moves: CountMoves): void {
    const totals = new Map<PunchState, number>();
    for (const [terminal, state, n] of moves.entries()) {
      this.stmt.add.run(terminal, state, n);
      totals.set(state, (totals.get(state) ?? 0) + n);
    }
    for (const [state, n] of totals) if (n !== 0) this.stmt.total.run(state, n);
  }

  /** The punches in the journal by state. */
  byState(): JournalCounts {
    const out = noPunchCounts();
    for (const r of this.stmt.byState.all() as { state: PunchState; n: number }[]) {
      const key = r.state === 'not_routed' ? 'notRouted' : r.state;
      if (key in out) out[key] = r.n;
    }
    return out;
  }

  /**
   * One terminal's punches by state: its few kept rows, found by the table's key. For one
   * terminal's figures, never a read of every terminal's rows (200 terminals: 600 rows a read).
   */
  ofTerminal(terminal: string): JournalCounts {
    const out = noPunchCounts();
    for (const r of this.stmt.ofTerminal.all(terminal) as { state: PunchState; n: number }[]) {
      const key = r.state === 'not_routed' ? 'notRouted' : r.state;
      if (key in out) out[key] += r.n;
    }
    return out;
  }

  /** Per terminal: punches in the journal, and how many of them are delivered. */
  byTerminal(): { terminal: string; journaled: number; delivered: number }[] {
    const out = new Map<string, { terminal: string; journaled: number; delivered: number }>();
    for (const r of this.stmt.all.all() as { terminal: string; state: PunchState; n: number }[]) {
      const t = out.get(r.terminal) ?? { terminal: r.terminal, journaled: 0, delivered: 0 };
      t.journaled += r.n;
      if (r.state === 'delivered') t.delivered += r.n;
      out.set(r.terminal, t);
    }
    return [...out.values()].filter((t) => t.journaled > 0);
  }

  /**
   * Per terminal with any, leaving out the terminals `except` names: its punches not delivered, by
   * state (the kept counts: a few rows, never the punches). The status asks it every build for the
   * terminals the config no longer names, which are none on most boxes: the names are left out in
   * SQLite, so the build does not make an object of every terminal's rows to throw them away (200
   * terminals: 600 rows, most of what a status build over a year of punches cost beyond an empty
   * journal's).
   */
  waitingByTerminal(
    except: readonly string[] = [],
  ): ({ terminal: string } & Omit<JournalCounts, 'delivered' | 'notRouted'>)[] {
    const out = new Map<string, { terminal: string } & Omit<JournalCounts, 'delivered' | 'notRouted'>>();
    const rows = this.stmt.waiting.all(JSON.stringify(except)) as {
      terminal: string;
      state: Exclude<PunchState, 'delivered' | 'not_routed'>;
      n: number;
    }[];
    for (const r of rows) {
      const t = out.get(r.terminal) ?? {
        terminal: r.terminal,
        pending: 0,
        inflight: 0,
        rejected: 0,
        dead: 0,
        quarantined: 0,
      };
      if (r.state in t) t[r.state] += r.n;
      out.set(r.terminal, t);
    }
    return [...out.values()];
  }
}

/**
 * Counts the punches again from the table (one pass): for file operations that change punches
 * outside the journal's own writes (restore returning an old box's claims). A journal older
 * than the counts' migration has no table: nothing to do (the migration counts).
 */
export function recountPunches(db: Database): void {
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'punch_counts'`).get();
  if (!has) return;
  db.transaction(() => {
    db.exec(`DELETE FROM punch_counts`);
    db.exec(
      `INSERT INTO punch_counts (terminal, state, n) SELECT terminal, state, count(*) FROM punches GROUP BY terminal, state`,
    );
    db.exec(`DELETE FROM punch_totals`);
    db.exec(`INSERT INTO punch_totals (state, n) SELECT state, sum(n) FROM punch_counts GROUP BY state`);
  })();
}
