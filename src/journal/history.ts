import type { Database, Statement } from 'better-sqlite3';
import type { PunchIds } from './punch-id.js';
import { toStored } from './queries.js';
import { DONE_TERM } from './not-routed.js';
import type { PunchState, StoredPunch } from './types.js';

/**
 * What the HRMS answered to each attempt at a punch, for `punchgate punches --history`.
 *
 * Only refusals get a row of their own (written in the transaction that settles them): the
 * answer that finally took a punch is already on the punch itself (delivered_at, last_message,
 * duplicate), and most punches are taken at the first attempt, so delivery writes nothing more.
 * Whole-request failures (network, token, timeouts) charge no attempt and are not listed here:
 * they are in the delivery state and the log. Rows older than `journal.retentionDays` are
 * deleted with the daily prune, so the table stays as small as the refusals of that period.
 */

/** Migration (appended to MIGRATIONS in migrations.ts): one row per refused attempt. */
export const PUNCH_REFUSALS_MIGRATION = `
  CREATE TABLE punch_refusals (
    punch_id  INTEGER NOT NULL,
    -- When the refusal was settled (epoch ms).
    at        INTEGER NOT NULL,
    -- Which attempt it was (punches.attempts after it), and the state it left the punch in.
    attempt   INTEGER NOT NULL,
    state     TEXT    NOT NULL CHECK (state IN ('rejected', 'dead')),
    -- The HRMS's message, as given (secrets scrubbed), cut at MAX_MESSAGE characters.
    message   TEXT    NOT NULL
  );
  CREATE INDEX punch_refusals_by_punch ON punch_refusals (punch_id, at);
  CREATE INDEX punch_refusals_at ON punch_refusals (at);
`;

/** An HRMS that answers with a whole page is kept to this much per refusal. */
const MAX_MESSAGE = 2000;

/** One answer of the HRMS to one attempt at a punch. */
export interface PunchAttempt {
  /** Epoch ms. */
  at: number;
  attempt: number;
  outcome: 'rejected' | 'dead' | 'delivered' | 'duplicate';
  message: string;
}

/** What `punchgate punches` lists: newest first, by log time (or by delivery time: `byDelivery`). */
export interface PunchListFilter {
  /** A state, or 'undelivered': every state but delivered and not_routed (what a journal still owes the HRMS). */
  state?: PunchState | 'undelivered';
  terminal?: string;
  /** Biometric codes (any of them). */
  codes?: readonly string[];
  /** Log times from this one on (`YYYY-MM-DD HH:mm:ss`, inclusive). */
  since?: string;
  /** Log times up to this one (inclusive). */
  until?: string;
  /** Delivered punches only, the most recently delivered first (`punches --by-delivery`). */
  byDelivery?: boolean;
  limit?: number;
}

function whereOf(f: PunchListFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    parts.push(sql);
    params.push(value);
  };
  // By delivery: the literal lets SQLite use the partial index punches_delivered_at.
  if (f.byDelivery) parts.push(`state = 'delivered'`);
  // Undelivered: still owed to the HRMS; a punch never meant for it (not_routed) is not.
  else if (f.state === 'undelivered') parts.push(`NOT ${DONE_TERM}`);
  else if (f.state) add('state = ?', f.state);
  if (f.terminal) add('terminal = ?', f.terminal);
  if (f.codes && f.codes.length > 0) add('biometric_code IN (SELECT value FROM json_each(?))', JSON.stringify(f.codes));
  if (f.since) add('log_time >= ?', f.since);
  if (f.until) add('log_time <= ?', f.until);
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export class PunchHistory {
  private readonly stmt: { insert: Statement; prune: Statement; of: Statement };

  constructor(
    private readonly db: Database,
    private readonly ids: PunchIds,
  ) {
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO punch_refusals (punch_id, at, attempt, state, message) VALUES (@id, @at, @attempt, @state, @message)`,
      ),
      prune: db.prepare(
        `DELETE FROM punch_refusals WHERE rowid IN (SELECT rowid FROM punch_refusals WHERE at < ? ORDER BY at LIMIT ?)`,
      ),
      of: db.prepare(
        `SELECT punch_id AS id, at, attempt, state, message FROM punch_refusals
          WHERE punch_id IN (SELECT value FROM json_each(?)) ORDER BY punch_id, at, attempt`,
      ),
    };
  }

  /** A refusal, inside the transaction that settles it. */
  refused(r: { id: number; at: number; attempt: number; state: 'rejected' | 'dead'; message: string }): void {
    this.stmt.insert.run({ ...r, message: r.message.slice(0, MAX_MESSAGE) });
  }

  /** Deletes up to `limit` refusals older than `cutoff` (epoch ms), oldest first; returns how many. */
  prune(cutoff: number, limit: number): number {
    return this.stmt.prune.run(cutoff, limit).changes;
  }

  /** Punches, newest log time first; or the most recently delivered first (punches_delivered_at). */
  list(f: PunchListFilter = {}): StoredPunch[] {
    const w = whereOf(f);
    const limit = f.limit ? `LIMIT ${Math.max(1, Math.floor(f.limit))}` : '';
    const order = f.byDelivery ? 'delivered_at DESC, id DESC' : 'log_time DESC, id DESC';
    const rows = this.db
      .prepare(`SELECT * FROM punches ${w.sql} ORDER BY ${order} ${limit}`)
      .all(...w.params) as Record<string, unknown>[];
    return rows.map((r) => toStored(r, this.ids));
  }

  /** How many punches the filter matches without its limit (to say how many were left out). */
  count(f: PunchListFilter): number {
    const w = whereOf(f);
    return (this.db.prepare(`SELECT count(*) AS n FROM punches ${w.sql}`).get(...w.params) as { n: number }).n;
  }

  /**
   * Each punch's attempts in order: its refusals, then the answer that took it (when delivered).
   * Refusals older than the retention are gone; the punch's own last answer stays.
   */
  attemptsOf(punches: readonly StoredPunch[]): Map<number, PunchAttempt[]> {
    const out = new Map<number, PunchAttempt[]>(punches.map((p) => [p.id, []]));
    const rows = this.stmt.of.all(JSON.stringify(punches.map((p) => p.id))) as {
      id: number;
      at: number;
      attempt: number;
      state: 'rejected' | 'dead';
      message: string;
    }[];
    for (const r of rows) out.get(r.id)?.push({ at: r.at, attempt: r.attempt, outcome: r.state, message: r.message });
    for (const p of punches) {
      if (p.state !== 'delivered' || p.deliveredAt === null) continue;
      out.get(p.id)!.push({
        at: p.deliveredAt,
        attempt: p.attempts,
        outcome: p.duplicate ? 'duplicate' : 'delivered',
        message: p.lastMessage ?? '',
      });
    }
    return out;
  }
}
