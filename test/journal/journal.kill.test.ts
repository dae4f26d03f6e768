import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Kills a writer with SIGKILL at a random moment `afterMs` after its first acknowledged batch, and
 * gives the last batch it acknowledged. Timed from the first batch, not from the spawn: on a loaded
 * CI box starting node and opening the journal may take longer than the whole wait, and a writer
 * killed before it wrote anything proves nothing (five such rounds failed the test by chance).
 */
function runUntilKilled(path: string, afterMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/fixtures/ingest-loop.mjs', path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    let buf = '';
    let killAt: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) acked = Math.max(acked, Number(l));
      if (acked > 0) killAt ??= setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    // A writer that never acknowledges anything is ended too (and the test fails on ackedTotal).
    const never = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', () => {
      clearTimeout(never);
      clearTimeout(killAt);
    });
    child.on('error', reject);
    child.on('exit', () => resolve(acked));
  });
}

describe('journal under SIGKILL', () => {
  it('keeps every acknowledged punch, duplicates none, and leaves nothing inflight', async () => {
    const tmp = tempDir();
    const path = tmp.path('journal.db');
    try {
      let ackedTotal = 0;
      for (let round = 0; round < 5; round++) {
        // Each round restarts from n=0: the first rounds' punches come again and must deduplicate.
        const acked = await runUntilKilled(path, Math.floor(Math.random() * 500));
        ackedTotal = Math.max(ackedTotal, acked);
        const j = Journal.open({ path, site: 'kill', mode: 'owner' });
        const c = j.counts();
        const total = Object.values(c).reduce((a, b) => a + b, 0);
        expect(c.inflight).toBe(0);
        expect(total).toBeGreaterThanOrEqual(ackedTotal);
        const rows = j.db
          .prepare('SELECT count(*) AS n, count(DISTINCT biometric_code || log_time) AS d FROM punches')
          .get() as { n: number; d: number };
        expect(rows.n).toBe(rows.d);
        j.close();
      }
      expect(ackedTotal).toBeGreaterThan(0);
      // The killed writers' claim-holder files are gone with their claims, the lock's rollback journal too.
      expect(readdirSync(tmp.dir).filter((f) => f.includes('.claim-'))).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});
