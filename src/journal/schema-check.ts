import type { Database as Db } from 'better-sqlite3';
import { BACKUP_APPLICATION_ID } from './backup-mark.js';
import { SEAL_TABLE, SEAL_TABLE_SQL } from './backup-seal.js';
import { JournalUnusableError } from './errors.js';
import { applyMigration, MIGRATIONS } from './migrations.js';
import { Database } from './sqlite-driver.js';
import { firstFew } from '../util/first-few.js';

/**
 * Whether a journal holds exactly the schema punchgate makes, and nothing of anyone else's
 * (issue 30): a trigger added to a backup (`INSERT INTO punches ... RAISE(IGNORE)`) made every new
 * punch count as a duplicate after the backup was restored, and the file passed every check.
 *
 * The reference is not a hand list: it is a journal of the same schema version built in memory
 * from MIGRATIONS, the way punchgate builds one. Compared by structure: each table's columns
 * (name, type, NOT NULL, default, key, generated) and its text without case, quotes, comments and
 * spacing (a CHECK lives only there); each index's columns, uniqueness and WHERE clause; and no
 * trigger, view or other object that the reference does not have.
 */

interface Objects {
  /** `type name` -> what it is made of, as one comparable string. */
  shape: Map<string, string>;
}

const references = new Map<number, Objects>();

/** The schema of a fresh journal at `version`, built in memory (once per version per process). */
function reference(version: number): Objects {
  let r = references.get(version);
  if (!r) {
    const db = new Database(':memory:');
    try {
      for (const m of MIGRATIONS.slice(0, version)) applyMigration(db, m);
      // A backup's seal (backup-seal.ts): allowed, exactly as punchgate backup makes it, never required.
      db.exec(SEAL_TABLE_SQL);
      r = objectsOf(db);
    } finally {
      db.close();
    }
    references.set(version, r);
  }
  return r;
}

/**
 * Comments taken out of SQL text, but not out of its string literals: a literal and a comment are
 * found in one pass, left to right, so an apostrophe in a comment (the punches table has
 * "-- The device's serial number, '' when ...") does not pass for the start of a literal.
 */
const withoutComments = (s: string) =>
  s
    .split(/('(?:[^']|'')*'|--[^\n]*|\/\*[\s\S]*?\*\/)/)
    .map((part, i) => (i % 2 === 1 && !part.startsWith("'") ? ' ' : part))
    .join('');

/**
 * A WHERE clause or other SQL text, compared without case, identifier quotes, comments and
 * spacing. String literals ('...') are compared exactly as written: `DEFAULT 'UNKNOWN'` or
 * `CHECK (state IN ('PENDING', ...))` is another schema than punchgate's lower-case one.
 */
const normalSql = (s: string | null | undefined) =>
  withoutComments(s ?? '')
    .split(/('(?:[^']|'')*')/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/["`[\]]/g, '')
            .replace(/\s+/g, ' ')
            .replace(/\s*([(),=<>])\s*/g, '$1')
            .toLowerCase(),
    )
    .join('')
    .trim();

function objectsOf(db: Db): Objects {
  const shape = new Map<string, string>();
  const rows = db.prepare(`SELECT type, name, tbl_name AS tbl, sql FROM sqlite_schema`).all() as {
    type: string;
    name: string;
    tbl: string;
    sql: string | null;
  }[];
  for (const o of rows) {
    // SQLite's own statistics tables (ANALYZE, PRAGMA optimize): they change no row. Only tables:
    // a trigger or view under such a name (written into the schema by hand, as sqlite3's
    // writable_schema allows) is an object like any other.
    if (o.type === 'table' && /^sqlite_stat[1-4]$/.test(o.name)) continue;
    const key = `${o.type} ${o.name}`;
    if (o.type === 'table') {
      const cols = db.prepare(`SELECT * FROM pragma_table_xinfo(?)`).all(o.name) as Record<string, unknown>[];
      const list = db.prepare(`SELECT wr, strict FROM pragma_table_list(?) WHERE schema = 'main'`).get(o.name) as
        { wr: number; strict: number } | undefined;
      shape.set(
        key,
        JSON.stringify([
          cols.map((c) => [
            c.name,
            String(c.type).toLowerCase(),
            c.notnull,
            normalSql(c.dflt_value as string),
            c.pk,
            c.hidden,
          ]),
          list?.wr,
          list?.strict,
          // A CHECK or a generated column's expression lives only in the text (compared without
          // case, quotes, comments and spacing).
          normalSql(o.sql),
        ]),
      );
    } else if (o.type === 'index') {
      const cols = db.prepare(`SELECT * FROM pragma_index_xinfo(?)`).all(o.name) as Record<string, unknown>[];
      const where = o.sql ? normalSql(/\bwhere\b([\s\S]*)$/i.exec(o.sql)?.[1]) : '';
      const unique = o.sql ? /^\s*create\s+unique\b/i.test(o.sql) : true;
      shape.set(key, JSON.stringify([o.tbl, unique, where, cols.map((c) => [c.cid, c.name, c.desc, c.coll, c.key])]));
    } else {
      // Triggers and views: a fresh journal has none; whatever one is, it is compared by its text.
      shape.set(key, JSON.stringify([o.tbl, normalSql(o.sql)]));
    }
  }
  return { shape };
}

/**
 * What differs between the journal's schema and punchgate's own at the journal's version, in
 * words (empty: exactly punchgate's). A version this punchgate does not know is not judged here.
 */
export function schemaProblems(db: Db): string[] {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 1 || version > MIGRATIONS.length) return [];
  const want = reference(version).shape;
  const have = objectsOf(db).shape;
  const out: string[] = [];
  // A journal carries no mark (0) or a backup's; another program's id says the file is its format.
  const app = db.pragma('application_id', { simple: true }) as number;
  if (app !== 0 && app !== BACKUP_APPLICATION_ID)
    out.push(`the application_id 0x${(app >>> 0).toString(16)} of another program's file format`);
  for (const [key, s] of have) {
    if (!want.has(key)) out.push(`a ${key} that punchgate does not make`);
    else if (want.get(key) !== s) out.push(`the ${key} is not as punchgate makes it`);
  }
  for (const key of want.keys()) if (!have.has(key) && key !== `table ${SEAL_TABLE}`) out.push(`no ${key}`);
  return out;
}

/** The fix that goes with schemaProblems. */
export function foreignSchemaFix(path: string): string {
  return `use a backup made by punchgate backup, or remove the objects named (sqlite3 ${path} '.schema' lists them; e.g. DROP TRIGGER name) with punchgate stopped, keeping a copy first`;
}

/** Refuses a journal whose schema is not exactly punchgate's (see schemaProblems). */
export function refuseForeignSchema(db: Db, path: string): void {
  const problems = schemaProblems(db);
  if (problems.length === 0) return;
  throw new JournalUnusableError(
    path,
    `holds a schema that is not punchgate's: ${firstFew(problems, 4, undefined, '; ')} (another program's objects can change or drop punches)`,
    foreignSchemaFix(path),
    'SCHEMA',
  );
}
