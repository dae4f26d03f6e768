import type { Database, Statement } from 'better-sqlite3';

/**
 * The retention of terminal commands (terminal_commands): a settled one (done or failed) goes
 * once it settled more than `journal.retentionDays` ago, like a delivered punch. Before, no row
 * ever left: every CHECK queued at a DST change, every user sync's commands, every command of a
 * terminal taken out of the config stayed for ever.
 *
 * An open command (queued or sent) stays: it is still to be sent, or its answer is awaited.
 * The newest row of all stays too: SQLite gives a new row the largest id plus one, and a command
 * id the terminals have seen must never be handed out again (a late answer to the old one would
 * settle the new one).
 *
 * The table has no index by time (adding one would need a migration): it is walked by id, a
 * window of rows per step, and the walk stops at the first window that holds a command created
 * after the cutoff (ids grow with time, and a command settles after it is created). A step reads
 * at most `limit` rows, whatever the table's size.
 */
export class CommandRetention {
  private readonly window: Statement;
  private readonly drop: Statement;

  constructor(db: Database) {
    this.window = db.prepare(`SELECT id, state, created_at AS createdAt, done_at AS doneAt FROM terminal_commands
       WHERE id > ? AND id < (SELECT max(id) FROM terminal_commands) ORDER BY id LIMIT ?`);
    this.drop = db.prepare(`DELETE FROM terminal_commands WHERE id IN (SELECT value FROM json_each(?))`);
  }

  /**
   * One step: looks at up to `limit` commands after id `after`, deletes the settled ones past
   * `cutoff`. Returns how many it deleted, and the id to go on from (null: the walk is over).
   */
  step(cutoff: number, after: number, limit: number): { deleted: number; next: number | null } {
    const rows = this.window.all(after, limit) as {
      id: number;
      state: string;
      createdAt: number;
      doneAt: number | null;
    }[];
    const old = rows.filter((r) => (r.state === 'done' || r.state === 'failed') && (r.doneAt ?? r.createdAt) < cutoff);
    const deleted = old.length > 0 ? this.drop.run(JSON.stringify(old.map((r) => r.id))).changes : 0;
    const over = rows.length < limit || rows.some((r) => r.createdAt >= cutoff);
    return { deleted, next: over ? null : rows[rows.length - 1]!.id };
  }
}
