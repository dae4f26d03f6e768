import type Database from 'better-sqlite3';
import { renameSync } from 'node:fs';
import { ensurePrivateFile } from '../util/private-file.js';
import { Database as Driver } from './sqlite-driver.js';

/**
 * What is saved when the journal file was written over in place under the open connection
 * (file-identity.ts: truncated, or another file copied over it). The connection still reads the
 * pages of its write-ahead log and of its cache as they were; the rest now come from the other
 * file. So: what it can still read is written out whole beside the journal (VACUUM INTO) and
 * checked; then the write-ahead log and its index are moved aside, so that no later open (the next
 * start, a one-shot command) lays the old journal's newest pages over the file now under the name.
 * The connection must then never be closed (journal.ts): SQLite's close would checkpoint the log
 * into that file. Says what it did, in words for the log line.
 */
export function saveOverwrittenJournal(db: Database.Database, path: string, stamp: string): string {
  const aside = `${path}.saved-${stamp}`;
  let saved: string;
  try {
    ensurePrivateFile(aside); // a copy of the journal, private as the journal is
    db.prepare('VACUUM INTO ?').run(aside);
    saved = isWhole(aside)
      ? `what the open journal still held is saved whole as ${aside} (put it in place with punchgate restore ${aside}, punchgate stopped)`
      : `what the open journal still held is saved as ${aside}, but damaged: its pages that were only in the overwritten file are lost`;
  } catch (e) {
    saved = `what the open journal held could not be saved (${e instanceof Error ? e.message : String(e)})`;
  }
  const moved: string[] = [];
  for (const side of ['-wal', '-shm']) {
    const to = `${path}.overwritten-${stamp}${side}`;
    try {
      renameSync(`${path}${side}`, to);
      moved.push(to);
    } catch {
      // absent (never made), or not movable: said below by its absence from the list
    }
  }
  return moved.length > 0
    ? `${saved}; the write-ahead log is moved aside (${moved.join(', ')}), never to be laid over the file now under the name`
    : saved;
}

/** Whether a saved copy opens and passes SQLite's quick check. */
function isWhole(file: string): boolean {
  try {
    const copy = new Driver(file, { readonly: true, fileMustExist: true });
    try {
      return copy.pragma('quick_check', { simple: true }) === 'ok';
    } finally {
      copy.close();
    }
  } catch {
    return false;
  }
}
