import { Database } from '../../src/journal/sqlite-driver.js';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'settle-kill-token-4e1a';
const SITE = 'plant-k';
const BATCH = 50;
const PUNCHES = 230;

/**
 * `punchgate run` killed (SIGKILL) around the transaction that settles one batch and claims the
 * batch after the next, while a request is on the wire (real processes, a real journal file, the
 * HRMS simulator behind a proxy that holds its answers). Whatever the moment, the next start
 * returns the dead process's claims and every punch is in the HRMS's attendance exactly once
 * (a resent punch is answered "already exists" by its devicelogId).
 */
describe('SIGKILL around the settle-and-claim of a batch', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup() {
    const tmp = tempDir('punchgate-settle-kill-');
    cleanups.push(() => tmp.cleanup());
    const hrms: HrmsSim = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => hrms.stop());
    const proxy: HoldingProxy = await startHoldingProxy(hrms.url);
    cleanups.push(() => proxy.stop());
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    const configPath = tmp.path('punchgate.yaml');
    writeFileSync(
      configPath,
      stringify({
        site: SITE,
        journal: { path: 'journal.db' },
        hrms: { baseUrl: proxy.url, tokenFile: 'token', timeoutMs: 30_000, connectTimeoutMs: 5000 },
        delivery: { batchSize: BATCH, pollIntervalMs: 100 },
        status: { intervalMs: 500 },
        terminals: [],
      }),
    );
    const journal = Journal.open({ path: tmp.path('journal.db'), site: SITE, mode: 'owner' });
    journal.ingest(
      Array.from({ length: PUNCHES }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(2000 + (i % 40)),
        logTime: `2026-11-22 ${String(6 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      })),
    );
    journal.close();
    const counts = () => {
      const j = Journal.open({ path: tmp.path('journal.db'), site: SITE, mode: 'readonly' });
      try {
        return j.counts();
      } finally {
        j.close();
      }
    };
    const start = () => {
      const d = spawnDaemon(configPath);
      cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
      return d;
    };
    return { tmp, hrms, proxy, counts, start };
  }

  /** After a restart without holding: every punch once in the attendance, the journal all delivered. */
  async function finishAndCount(s: Awaited<ReturnType<typeof setup>>, resentAtMost: number): Promise<void> {
    s.proxy.passThrough();
    const d = s.start();
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered after the restart');
    await waitFor(() => s.counts().delivered === PUNCHES, 30_000, 'the journal has them delivered');
    d.child.kill('SIGTERM');
    expect((await d.exited).code, d.output()).toBe(0);
    expect(s.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0, rejected: 0, dead: 0 });
    const attendance = s.hrms.attendance();
    expect(attendance).toHaveLength(PUNCHES);
    expect(new Set(attendance.map((a) => a.devicelogId)).size).toBe(PUNCHES);
    // Only what was on the wire (or answered but not yet settled) at the kill was sent again.
    const resent = s.hrms.received().length - PUNCHES;
    expect(resent).toBeGreaterThan(0);
    expect(resent).toBeLessThanOrEqual(resentAtMost);
  }

  it('killed just after the combined settle-and-claim committed, with the next request on the wire', async () => {
    const s = await setup();
    const d = s.start();
    await waitFor(
      () => s.proxy.held() === 1 && s.counts().inflight === 2 * BATCH,
      20_000,
      'batch 1 out, batch 2 claimed',
    );
    s.proxy.releaseNext();
    // Batch 2 on the wire; batch 1 settled and batch 3 claimed in one transaction.
    await waitFor(
      () => s.proxy.held() === 1 && s.proxy.received() === 2 && s.counts().delivered === BATCH,
      20_000,
      'batch 1 settled with the claim of batch 3',
    );
    expect(s.counts()).toMatchObject({ delivered: BATCH, inflight: 2 * BATCH });
    d.child.kill('SIGKILL');
    expect((await d.exited).signal).toBe('SIGKILL');
    // The simulator recorded batch 2 (its answer never came back): it is sent again, once.
    expect(s.hrms.received()).toHaveLength(2 * BATCH);
    await finishAndCount(s, BATCH);
  }, 120_000);

  it('killed while the answers of a batch wait in memory for a busy journal', async () => {
    const s = await setup();
    const d = s.start();
    await waitFor(
      () => s.proxy.held() === 1 && s.counts().inflight === 2 * BATCH,
      20_000,
      'batch 1 out, batch 2 claimed',
    );
    // Another process holds the journal's write lock when batch 1's answer comes back: its
    // settle (with the claim of batch 3) cannot be written and waits in the daemon's memory.
    const other = new Database(s.tmp.path('journal.db'));
    cleanups.push(() => other.open && other.close());
    other.exec('BEGIN IMMEDIATE');
    s.proxy.releaseNext();
    await waitFor(
      () => s.proxy.received() === 2 && /journal busy/.test(d.output()),
      20_000,
      'batch 2 out, the settle of batch 1 kept for later',
    );
    d.child.kill('SIGKILL');
    await d.exited;
    other.exec('ROLLBACK');
    other.close();
    // Batch 1 was answered but never settled: inflight under a dead process, like batch 2.
    expect(s.counts()).toMatchObject({ delivered: 0, inflight: 2 * BATCH });
    await finishAndCount(s, 2 * BATCH);
  }, 120_000);
});
