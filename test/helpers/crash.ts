import type { Journal } from '../../src/journal/index.js';

/**
 * Stands in for a crash of the process that has `journal` open, inside a test process: its
 * connection and its locks (owner lock, claim holder lock) go away, nothing is returned or
 * written, and the claims it recorded stay in the file as they were.
 */
export function crashJournal(journal: Journal): void {
  const j = journal as unknown as { lock?: { release(): void }; holder?: { abandon(): void } };
  journal.db.close();
  j.lock?.release();
  j.holder?.abandon();
}
