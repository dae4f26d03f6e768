import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDaemon } from '../../src/check/daemon-check.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/index.js';
import { OwnerLock } from '../../src/journal/lock.js';
import { runningReport } from '../../src/status/daemon-probe.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/**
 * A running daemon (it holds the owner lock, its status log is fresh) whose status.json says what
 * it last saw of the journal: busy since `busyFor` ms ago, or free.
 */
function runningDaemon(busyFor: number | null, checkpoints?: object) {
  const t = tempDir('punchgate-busy-');
  cleanups.push(t.cleanup);
  const journal = t.path('journal.db');
  Journal.open({ path: journal, site: 'plant-a', mode: 'owner' }).close();
  const lock = OwnerLock.acquire(journal);
  cleanups.push(() => lock.release());
  const now = Date.now();
  writeFileSync(t.path('status.txt'), 'status\n');
  writeFileSync(
    t.path('status.json'),
    JSON.stringify({
      journal: {
        path: journal,
        busySince: busyFor === null ? null : new Date(now - busyFor).toISOString(),
        heldPunches: 3,
        freeBytes: null,
        ...(checkpoints ? { checkpoints } : {}),
      },
    }),
  );
  const config = {
    journal: { path: journal },
    status: { path: t.path('status.txt'), intervalMs: 10_000 },
  } as unknown as Config;
  return { config, journal, clock: { now: () => now } };
}

describe('punchgate check: a running daemon kept from its journal (found by an adversarial trial)', () => {
  it('warns with the status words and who to look for while another process has held the journal 2 s or more', () => {
    const d = runningDaemon(20_000);
    const r = checkDaemon(d.config, d.clock, { required: false, report: runningReport(d.config) });
    expect(r.status).toBe('warn');
    expect(r.detail).toContain(
      'punchgate run is running, but journal busy for 20 s (another process holds it): 3 punches held in memory',
    );
    expect(r.fix).toContain(`fuser -v ${d.journal}`);
  });

  it("warns while the daemon's checkpoint thread has failed (a disk full for a while), and passes once it is back", () => {
    const failed = runningDaemon(null, {
      thread: 'failed',
      failedAt: new Date().toISOString(),
      error: 'SQLITE_FULL: database or disk is full',
      failures: 1,
    });
    const r = checkDaemon(failed.config, failed.clock, { required: false, report: runningReport(failed.config) });
    expect(r.status).toBe('warn');
    expect(r.detail).toMatch(
      /^punchgate run is running, but the journal's checkpoint thread failed at .*: SQLITE_FULL: database or disk is full; punches are kept/,
    );
    expect(r.fix).toContain('df -h');
    const back = runningDaemon(null, { thread: 'running', failedAt: null, error: null, failures: 0 });
    expect(checkDaemon(back.config, back.clock, { required: false, report: runningReport(back.config) }).status).toBe(
      'pass',
    );
  });

  it('passes when the journal is free, or busy only for an ordinary moment', () => {
    for (const busy of [null, 500]) {
      const d = runningDaemon(busy);
      expect(checkDaemon(d.config, d.clock, { required: false, report: runningReport(d.config) }).status).toBe('pass');
    }
  });
});
