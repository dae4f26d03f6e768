import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { droppedWalCommits } from '../../src/journal/wal-frames.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** SQLite's WAL checksum over `len` bytes from the start, little-endian (magic 0x377f0682). */
function checksum(buf: Buffer, len: number): [number, number] {
  let s1 = 0;
  let s2 = 0;
  for (let p = 0; p < len; p += 8) {
    s1 = (s1 + buf.readUInt32LE(p) + s2) >>> 0;
    s2 = (s2 + buf.readUInt32LE(p + 4) + s1) >>> 0;
  }
  return [s1, s2];
}

/** A log header whose own checksum holds, with `pageSize` as its page size field says (fileformat.html). */
function header(pageSize: number): Buffer {
  const h = Buffer.alloc(32);
  h.writeUInt32BE(0x377f0682, 0);
  h.writeUInt32BE(3007000, 4);
  h.writeUInt32BE(pageSize >>> 0, 8);
  const [a, b] = checksum(h, 24);
  h.writeUInt32BE(a, 24);
  h.writeUInt32BE(b, 28);
  return h;
}

/**
 * The daemon reads the journal's write-ahead log at its start (wal-frames.ts), a file whoever can
 * write the journal's folder can craft. SQLite's page size is a power of two from 512 to 65536
 * (the field's 1 meaning 65536); a header saying 2^31, with its checksum right, had the reader
 * allocate a frame buffer of 2 GB before reading one frame (found by an adversarial trial).
 */
describe('a crafted write-ahead log header', () => {
  it('is no log SQLite reads when its page size is out of SQLite’s range, and nothing is allocated for it', () => {
    const tmp = tempDir('punchgate-wal-');
    cleanups.push(tmp.cleanup);
    const wal = tmp.path('journal.db-wal');
    for (const pageSize of [0, 2, 256, 1000, 131072, 2 ** 24, 2 ** 30, 2 ** 31]) {
      writeFileSync(wal, header(pageSize));
      const before = process.memoryUsage().arrayBuffers;
      expect(droppedWalCommits(wal), `page size ${pageSize}`).toBeUndefined();
      expect(process.memoryUsage().arrayBuffers - before, `page size ${pageSize}`).toBeLessThan(1 << 20);
    }
  });

  it('reads a truncated header, or one with the page size 1 (65536) and no frames, as nothing dropped', () => {
    const tmp = tempDir('punchgate-wal-');
    cleanups.push(tmp.cleanup);
    const wal = tmp.path('journal.db-wal');
    writeFileSync(wal, header(4096).subarray(0, 20));
    expect(droppedWalCommits(wal)).toBeUndefined();
    writeFileSync(wal, Buffer.concat([header(1), Buffer.alloc(1000)]));
    expect(droppedWalCommits(wal)).toBeUndefined();
  });
});
