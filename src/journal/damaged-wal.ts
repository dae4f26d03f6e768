import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
  const { keptAs, mtime } = keepCopy(wal, `${journalPath}.damaged-wal-${stamp}`);
  return { keptAs, droppedCommits: dropped.droppedCommits, lastWritten: mtime.toISOString() };
}

/** Copies written in one second before every name is taken (a start a second: systemd's is every 5 s). */
const NAMES_PER_STAMP = 9;

/**
 * The log copied to a new file at `name` (or `name-2` ... when taken), 0600, with the log's times.
 * The folder is the service user's, and a `punchgate run` started by hand as root copies too: the
 * copy is made new (O_EXCL | O_NOFOLLOW) and its times set on the open file, so a link put at the
 * name beforehand is never written through (copyFileSync followed it and overwrote its target
 * with the log's bytes, which whoever wrote the log chose: found by an adversarial trial), and a
 * FIFO there is never opened. A copy that fails half-way (a full disk) is removed.
 */
function keepCopy(wal: string, name: string): { keptAs: string; mtime: Date } {
  const from = openSync(wal, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { atime, mtime } = fstatSync(from);
    for (let n = 1; n <= NAMES_PER_STAMP; n++) {
      const keptAs = n === 1 ? name : `${name}-${n}`;
      let to: number;
      try {
        to = openSync(
          keptAs,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK,
          0o600,
        );
      } catch (e) {
        if ((e as { code?: string }).code === 'EEXIST') continue;
        throw e;
      }
      try {
        copyAll(from, to);
        // The copy keeps the log's time: the status and check (keptDamagedWals) name the hours to import from it.
        futimesSync(to, atime, mtime);
      } catch (e) {
        closeSync(to);
        rmSync(keptAs, { force: true });
        throw e;
      }
      closeSync(to);
      return { keptAs, mtime };
    }
    throw new Error(`${name} and ${NAMES_PER_STAMP - 1} names after it are taken: the damaged log could not be kept`);
  } finally {
    closeSync(from);
  }
}

/** The whole of `from` into `to`, a megabyte at a time (a log may be far larger than the box's memory budget). */
function copyAll(from: number, to: number): void {
  const buf = Buffer.alloc(1 << 20);
  for (let at = 0; ;) {
    const got = readSync(from, buf, 0, buf.length, at);
    if (got === 0) return;
    for (let done = 0; done < got;) done += writeSync(to, buf, done, got - done);
    at += got;
  }
}

/** What brings the dropped punches back, said by the daemon's line, the status and check alike. */
export const importAgainWords = (before: string): string =>
  `import the terminals' logs of the hours before ${before} (punchgate import --terminal NAME FILE, docs/import.md; punches the journal holds are recognised)`;

/** The one line the daemon logs (at error) for it. */
export function damagedWalWords(journalPath: string, d: DamagedWal): string {
  return `the journal's write-ahead log ${journalPath}-wal was damaged (a failing card, or a power cut on a card that does not keep its writes in order): ${d.droppedCommits} write${d.droppedCommits === 1 ? '' : 's'} after its damaged part, the last at ${d.lastWritten}, could not be read, and the punches journalled by ${d.droppedCommits === 1 ? 'it' : 'them'} are not in the journal; the log is kept as ${d.keptAs}: ${importAgainWords(d.lastWritten)}, and check the card (journalctl -k for I/O errors); punchgate status and check say it until the kept copy is removed (rm ${d.keptAs})`;
}

/** A damaged log kept beside the journal by keepDamagedWal: it stays until the admin removes it. */
export interface KeptDamagedWal {
  path: string;
  /** The log's last write (the copy keeps its time): the punches of the hours before it are to be imported. */
  lastWritten: string;
  /** The writes past its damaged part, read again from the copy; undefined when it cannot be read. */
  lostWrites?: number;
}

/**
 * The damaged logs kept beside the journal, oldest first: the kept copy is the record that punches
 * are to be imported again (the daemon's one line at its start scrolls away), so the status and
 * check say it while it is there. One listing of the journal's folder and a stat of each copy
 * found: measured 20 µs with the dozen files punchgate keeps there, 1 ms with 2,000 files, so it
 * is done at every status build (each minute; the page and /metrics share the last one). Each copy
 * found is read again for its count of lost writes (the daemon's line said it once, and status,
 * page and check did not): a frame at a time, as at the start, only while a copy is kept
 * (measured: 6 to 15 ms for a 10 MB log of 80,000 punches, once a minute).
 */
export function keptDamagedWals(journalPath: string): KeptDamagedWal[] {
  const prefix = `${basename(journalPath)}.damaged-wal-`;
  let names: string[];
  try {
    names = readdirSync(dirname(journalPath)).filter((n) => n.startsWith(prefix));
  } catch {
    // A folder that cannot be listed is one whose journal cannot be opened: that is said instead.
    return [];
  }
  return names.sort().flatMap((n) => {
    const path = join(dirname(journalPath), n);
    try {
      const lastWritten = statSync(path).mtime.toISOString();
      return [{ path, lastWritten, lostWrites: droppedWalCommits(path)?.droppedCommits }];
    } catch {
      // Removed between the listing and the stat: gone, as the admin meant.
      return [];
    }
  });
}
