import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { warnLowDiskAtStart } from '../../src/daemon/disk-at-start.js';
import { createLogger } from '../../src/util/logger.js';
import { tempDir } from '../helpers/tmp.js';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', destination: dest }), lines };
}

const MiB = 1024 * 1024;

describe('the journal disk already low at daemon start', () => {
  it('logs a warning with the free space, the threshold and the fix, in the status alert words', () => {
    const tmp = tempDir();
    try {
      const c = captureLogger();
      expect(warnLowDiskAtStart(tmp.path('j.db'), c.logger, () => 100 * MiB)).toBe(100 * MiB);
      expect(c.lines).toHaveLength(1);
      expect(c.lines[0]).toMatchObject({
        level: 40,
        freeBytes: 100 * MiB,
        thresholdBytes: 256 * MiB,
        msg: 'disk nearly full: only 100 MiB free for the journal (the daemon warns below 256 MiB): free space (apt-get clean, journalctl --vacuum-size=100M) or move journal.path to a larger disk',
      });
      // Plenty of room, or no way to tell: nothing said here.
      warnLowDiskAtStart(tmp.path('j.db'), c.logger, () => 10 * 1024 * MiB);
      warnLowDiskAtStart(tmp.path('j.db'), c.logger, () => {
        throw new Error('statfs failed');
      });
      expect(c.lines).toHaveLength(1);
    } finally {
      tmp.cleanup();
    }
  });
});
