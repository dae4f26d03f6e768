import { copyFileSync, statSync } from 'node:fs';
import { droppedWalCommits } from './wal-frames.js';

/** A damaged write-ahead log found at the daemon's open, and the copy kept of it. */
export interface DamagedWal {
  keptAs: string;
  droppedCommits: number;
  /** When the log was last written (the power cut, or the last write before it). */
  lastWritten: string;
}

/**
 * Before the daemon's open: a log whose commits lie past a damaged frame (wal-frames.ts) loses
 * them at this open without a word from SQLite, which then writes the log over (found by a
 * damaged-journal trial: 1,000 owed punches gone, and run, check and status all said the journal
 * was fine). It cannot be read back, so it is said, and the log is kept as it was for whoever
 * can mend it by hand; the punches themselves are on the terminals, read again by an import.
 */
export function keepDamagedWal(journalPath: string, now: Date): DamagedWal | undefined {
  const wal = `${journalPath}-wal`;
  const dropped = droppedWalCommits(wal);
  if (!dropped) return undefined;
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const keptAs = `${journalPath}.damaged-wal-${stamp}`;
  const lastWritten = statSync(wal).mtime.toISOString();
  copyFileSync(wal, keptAs);
  return { keptAs, droppedCommits: dropped.droppedCommits, lastWritten };
}

/** The one line the daemon logs (at error) for it. */
export function damagedWalWords(journalPath: string, d: DamagedWal): string {
  return `the journal's write-ahead log ${journalPath}-wal was damaged (a failing card, or a power cut on a card that does not keep its writes in order): ${d.droppedCommits} write${d.droppedCommits === 1 ? '' : 's'} after its damaged part, the last at ${d.lastWritten}, could not be read, and the punches journalled by ${d.droppedCommits === 1 ? 'it' : 'them'} are not in the journal; the log is kept as ${d.keptAs}. Import the terminals' logs of the hours before ${d.lastWritten} (punchgate import; punches the journal holds are recognised), and check the card (journalctl -k for I/O errors)`;
}
