import type Database from 'better-sqlite3';
import { damagedJournal } from './errors.js';

/**
 * What SQLite's quick_check finds wrong in the journal's pages (empty when none). It reads every
 * page: about 0.5-0.8 s for a year of punches (1,000,000 rows, 206 MB) with the file in the page
 * cache, so it is for commands about to write much (an import), not for every write or a health
 * check. A write only meets a damaged page when it touches one: a journal with zeroed pages took
 * 200,000 imported punches without a word, so a large write asks first.
 */
export function integrityProblems(db: Database.Database): string[] {
  const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
  return rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
}

/** Throws the journal's "is damaged" error (exit 74, the path and the fix) when quick_check finds a problem. */
export function assertIntact(db: Database.Database, path: string): void {
  const problems = integrityProblems(db);
  if (problems.length === 0) return;
  const shown = problems
    .slice(0, 2)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .join('; ');
  throw damagedJournal(
    path,
    `quick_check found ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${shown}${problems.length > 2 ? '; ...' : ''}`,
  );
}
