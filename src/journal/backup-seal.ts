import { createHash } from 'node:crypto';
import type { Database as Db } from 'better-sqlite3';

/**
 * A backup's seal: a digest of everything the backup holds, written into it by `punchgate backup`
 * and checked by `punchgate restore` (found by an adversarial trial: one byte changed inside a
 * punch's row, an employee code or a time, passed SQLite's integrity check, which checks the
 * file's structure and not what the rows say, and the restored journal held another punch).
 *
 * The seal lives inside the backup, in a table of its own, so that it travels with the file (a
 * digest in a file beside it is lost by a copy of the backup alone, and two files cannot be
 * renamed into place in one step). It is a digest of the content, table by table and row by row
 * in key order, not of the file's bytes: SQLite's free pages and the header's mark do not count,
 * a byte of any row does. The restore takes the table out again: a journal never carries it.
 */
export const SEAL_TABLE = 'backup_seal';

/** The seal's table: one row. The schema check allows it (schema-check.ts), and only as made here. */
export const SEAL_TABLE_SQL = `CREATE TABLE ${SEAL_TABLE} (
  algorithm TEXT    NOT NULL,
  digest    TEXT    NOT NULL,
  punches   INTEGER NOT NULL
)`;

const ALGORITHM = 'sha256-rows-1';

/**
 * The digest of a journal's content, without the seal: the schema version, then every table
 * (sorted by name) with every row in key order (rowid, or the primary key of a table without
 * one), each value with its type (integers exactly, as SQLite holds them).
 */
export function contentDigest(db: Db): string {
  const hash = createHash('sha256');
  hash.update(`user_version ${String(db.pragma('user_version', { simple: true }))}\n`);
  const tables = db
    .prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name <> ? ORDER BY name`)
    .all(SEAL_TABLE) as { name: string; sql: string | null }[];
  for (const t of tables) {
    hash.update(`table ${t.name}\n${t.sql ?? ''}\n`);
    const withoutRowid = /\bwithout\s+rowid\s*$/i.test(t.sql ?? '');
    const quoted = `"${t.name.replace(/"/g, '""')}"`;
    const rows = db.prepare(`SELECT * FROM ${quoted}${withoutRowid ? '' : ' ORDER BY rowid'}`);
    rows.raw(true).safeIntegers(true);
    for (const row of rows.iterate() as Iterable<unknown[]>) {
      for (const v of row) hash.update(valueBytes(v));
      hash.update('\n');
    }
  }
  return hash.digest('hex');
}

/** A value with its type and length: "1" the text and 1 the integer never hash alike. */
function valueBytes(v: unknown): Buffer | string {
  if (v === null) return 'N;';
  if (typeof v === 'bigint') return `I${v.toString()};`;
  if (typeof v === 'number') return `R${v.toString()};`;
  if (typeof v === 'string') return `T${Buffer.byteLength(v)}:${v};`;
  if (Buffer.isBuffer(v)) return Buffer.concat([Buffer.from(`B${v.length}:`), v, Buffer.from(';')]);
  return `?${String(v)};`;
}

/** Writes the seal into a backup just copied (a seal it carried from its journal is replaced). */
export function sealBackup(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${SEAL_TABLE}`);
  const digest = contentDigest(db);
  const punches = (db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
  db.exec(SEAL_TABLE_SQL);
  db.prepare(`INSERT INTO ${SEAL_TABLE} (algorithm, digest, punches) VALUES (?, ?, ?)`).run(ALGORITHM, digest, punches);
}

/** What a backup's seal says of its content. */
export type SealCheck =
  /** Made before backups carried a seal, or a copy of a stopped journal: nothing to check against. */
  | { state: 'none' }
  | { state: 'ok' }
  /** The content is not what was written: a byte changed since (a disk, a copy, a person). */
  | { state: 'changed'; why: string };

/** Checks a backup's content against its seal (read only). */
export function checkSeal(db: Db): SealCheck {
  const has = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(SEAL_TABLE);
  if (!has) return { state: 'none' };
  let rows: { algorithm: unknown; digest: unknown }[];
  try {
    rows = db.prepare(`SELECT algorithm, digest FROM ${SEAL_TABLE}`).all() as typeof rows;
  } catch (e) {
    return { state: 'changed', why: `its seal cannot be read (${e instanceof Error ? e.message : String(e)})` };
  }
  if (rows.length !== 1 || rows[0]!.algorithm !== ALGORITHM || typeof rows[0]!.digest !== 'string')
    return { state: 'changed', why: 'its seal is not one punchgate backup writes' };
  return contentDigest(db) === rows[0]!.digest
    ? { state: 'ok' }
    : { state: 'changed', why: 'what it holds does not match the digest written into it when it was made' };
}

/** Takes the seal out of a restored copy: the journal itself never carries one. */
export function removeSeal(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${SEAL_TABLE}`);
}
