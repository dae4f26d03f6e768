import { readFileSync } from 'node:fs';

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

/**
 * Reads a journal's write-ahead log as SQLite's recovery does (its checksums chained from the
 * header, frame by frame: https://www.sqlite.org/fileformat.html#the_write_ahead_log) and says
 * whether commits of this log's generation (its salts) lie past the first frame that fails:
 * SQLite drops them without a word, with every punch they held. A torn last frame (a power cut
 * while a transaction was written) is no such case: nothing of this generation follows it.
 * Undefined when nothing is dropped, or the file is no log SQLite would read at all.
 */
export function droppedWalCommits(walPath: string): DroppedWalCommits | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(walPath);
  } catch {
    return undefined;
  }
  if (buf.length < HEADER) return undefined;
  const magic = buf.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return undefined;
  const bigEndian = magic === 0x377f0683;
  const pageSize = buf.readUInt32BE(8) === 1 ? 65536 : buf.readUInt32BE(8);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  const salt1 = buf.readUInt32BE(16);
  const salt2 = buf.readUInt32BE(20);
  let [s1, s2] = checksum(buf, 0, 24, 0, 0, bigEndian);
  if (s1 !== buf.readUInt32BE(24) || s2 !== buf.readUInt32BE(28)) return undefined;
  const frameSize = FRAME_HEADER + pageSize;
  const frames = Math.floor((buf.length - HEADER) / frameSize);
  let readFrames = 0;
  let i = 0;
  for (; i < frames; i++) {
    const at = HEADER + i * frameSize;
    if (buf.readUInt32BE(at + 8) !== salt1 || buf.readUInt32BE(at + 12) !== salt2 || buf.readUInt32BE(at) === 0) break;
    [s1, s2] = checksum(buf, at, 8, s1, s2, bigEndian);
    [s1, s2] = checksum(buf, at + FRAME_HEADER, pageSize, s1, s2, bigEndian);
    if (s1 !== buf.readUInt32BE(at + 16) || s2 !== buf.readUInt32BE(at + 20)) break;
    if (buf.readUInt32BE(at + 4) !== 0) readFrames = i + 1;
  }
  let droppedFrames = 0;
  let droppedCommits = 0;
  for (let k = i + 1; k < frames; k++) {
    const at = HEADER + k * frameSize;
    if (buf.readUInt32BE(at + 8) !== salt1 || buf.readUInt32BE(at + 12) !== salt2) continue;
    droppedFrames++;
    if (buf.readUInt32BE(at + 4) !== 0) droppedCommits++;
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
