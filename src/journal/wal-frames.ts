import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** What a write-ahead log holds past the point where SQLite stops reading it. */
export interface DroppedWalCommits {
  /** Frames SQLite takes (up to its last valid commit). */
  readFrames: number;
  /** Frames of this log's generation after the first one whose checksum fails. */
  droppedFrames: number;
  /** Of them, the commits: transactions that were whole when written, which SQLite will drop. */
  droppedCommits: number;
}

const HEADER = 32;
const FRAME_HEADER = 24;
/** SQLite's largest page size (the header's field says 1 for it): a larger field is no log SQLite reads. */
const MAX_PAGE_SIZE = 65536;

/**
 * Reads a journal's write-ahead log as SQLite's recovery does (its checksums chained from the
 * header, frame by frame: https://www.sqlite.org/fileformat.html#the_write_ahead_log) and says
 * whether commits of this log's generation (its salts) lie past the first frame that fails:
 * SQLite drops them without a word, with every punch they held. A torn last frame (a power cut
 * while a transaction was written) is no such case: nothing of this generation follows it.
 * Undefined when nothing is dropped, or the file is no log SQLite would read at all.
 */
export function droppedWalCommits(walPath: string): DroppedWalCommits | undefined {
  let fd: number;
  try {
    // Never follows a link, never waits on a FIFO (a FIFO at the log's name blocked the daemon's
    // start for good): a log SQLite reads is a plain file, and only that is read (open-db.ts
    // refuses anything else at the name with its path and fix).
    fd = openSync(walPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    return readLog(fd, st.size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Frame by frame through one buffer the size of a frame: a log can grow far past its size limit
 * while a reader holds it (a backup, a long status read), and reading it whole at the daemon's
 * start would take that much memory on a box budgeted at 128 MB.
 */
function readLog(fd: number, size: number): DroppedWalCommits | undefined {
  if (size < HEADER) return undefined;
  const header = Buffer.alloc(HEADER);
  if (readSync(fd, header, 0, HEADER, 0) !== HEADER) return undefined;
  const magic = header.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return undefined;
  const bigEndian = magic === 0x377f0683;
  const pageSize = header.readUInt32BE(8) === 1 ? 65536 : header.readUInt32BE(8);
  // Bounded above before a frame buffer is made: a crafted header's 2^31 (its checksum right)
  // had a 2 GB buffer allocated at the daemon's start (found by an adversarial trial).
  if (pageSize < 512 || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const salt1 = header.readUInt32BE(16);
  const salt2 = header.readUInt32BE(20);
  let [s1, s2] = checksum(header, 0, 24, 0, 0, bigEndian);
  if (s1 !== header.readUInt32BE(24) || s2 !== header.readUInt32BE(28)) return undefined;
  const frameSize = FRAME_HEADER + pageSize;
  const frames = Math.floor((size - HEADER) / frameSize);
  const frame = Buffer.alloc(frameSize);
  const readFrame = (k: number): boolean => readSync(fd, frame, 0, frameSize, HEADER + k * frameSize) === frameSize;
  const ofThisLog = () => frame.readUInt32BE(8) === salt1 && frame.readUInt32BE(12) === salt2;
  let readFrames = 0;
  let i = 0;
  for (; i < frames; i++) {
    if (!readFrame(i) || !ofThisLog() || frame.readUInt32BE(0) === 0) break;
    [s1, s2] = checksum(frame, 0, 8, s1, s2, bigEndian);
    [s1, s2] = checksum(frame, FRAME_HEADER, pageSize, s1, s2, bigEndian);
    if (s1 !== frame.readUInt32BE(16) || s2 !== frame.readUInt32BE(20)) break;
    if (frame.readUInt32BE(4) !== 0) readFrames = i + 1;
  }
  let droppedFrames = 0;
  let droppedCommits = 0;
  for (let k = i + 1; k < frames; k++) {
    if (!readFrame(k) || !ofThisLog()) continue;
    droppedFrames++;
    if (frame.readUInt32BE(4) !== 0) droppedCommits++;
  }
  return droppedCommits > 0 ? { readFrames, droppedFrames, droppedCommits } : undefined;
}

/** SQLite's WAL checksum (walChecksumBytes): two 32-bit sums over pairs of words. */
function checksum(buf: Buffer, at: number, len: number, a: number, b: number, bigEndian: boolean): [number, number] {
  let s1 = a;
  let s2 = b;
  for (let p = at; p < at + len; p += 8) {
    const x0 = bigEndian ? buf.readUInt32BE(p) : buf.readUInt32LE(p);
    const x1 = bigEndian ? buf.readUInt32BE(p + 4) : buf.readUInt32LE(p + 4);
    s1 = (s1 + x0 + s2) >>> 0;
    s2 = (s2 + x1 + s1) >>> 0;
  }
  return [s1, s2];
}
