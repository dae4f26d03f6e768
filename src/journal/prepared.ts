import type { Database, Statement } from 'better-sqlite3';

/**
 * A connection's statements, each prepared once and kept by its SQL text. Preparing costs as much
 * as running a small statement: a push upload's commit prepared six of them, at every upload of
 * every terminal, while the terminal waited for its OK. Only for SQL whose text comes from a
 * bounded set (constants, table names): one prepared per distinct text, kept while the
 * connection lives.
 */
export class PreparedStatements {
  private readonly byText = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  get(sql: string): Statement {
    let st = this.byText.get(sql);
    if (!st) this.byText.set(sql, (st = this.db.prepare(sql)));
    return st;
  }
}
