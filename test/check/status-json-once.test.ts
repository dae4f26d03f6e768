import * as fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { runChecks } from '../../src/check/index.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { Journal } from '../../src/journal/index.js';
import { OwnerLock } from '../../src/journal/lock.js';
import { tempDir } from '../helpers/tmp.js';

/** Every path opened through node:fs's openSync, as the code under test opens it. */
const opened: string[] = [];
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (real.openSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof real.openSync;
  return { ...real, default: { ...real, openSync }, openSync };
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * `punchgate check` read the daemon's status.json once for the journal's busy state, once for its
 * checkpoints, once for the config it runs on, once for its disk's syncs and once per listener: a
 * file the daemon replaces every few seconds, so one check could say things of several moments.
 * Read once.
 */
describe('punchgate check as a whole, beside a running daemon', () => {
  it("reads the daemon's status.json once for all its checks (daemon, disk, listeners)", async () => {
    const t = tempDir('punchgate-once-all-');
    cleanups.push(t.cleanup);
    const hrms = await startHrmsSim({ tokens: ['once-token-4d1c'] });
    cleanups.push(() => hrms.stop());
    fs.writeFileSync(t.path('token'), 'once-token-4d1c\n', { mode: 0o600 });
    const journal = t.path('journal.db');
    const configPath = t.path('punchgate.yaml');
    fs.writeFileSync(
      configPath,
      stringify({
        site: 'plant-a',
        journal: { path: journal },
        hrms: { baseUrl: hrms.url, tokenFile: t.path('token') },
        status: { path: t.path('status.txt'), intervalMs: 10_000, listen: '127.0.0.1:0' },
        adms: { listen: '127.0.0.1:0' },
        terminals: [{ name: 'door', kind: 'adms', serial: 'SN-ONCE-1' }],
      }),
    );
    Journal.open({ path: journal, site: 'plant-a', mode: 'owner' }).close();
    const lock = OwnerLock.acquire(journal);
    cleanups.push(() => lock.release());
    fs.writeFileSync(t.path('status.txt'), 'status\n');
    fs.writeFileSync(
      t.path('status.json'),
      JSON.stringify({
        journal: { path: journal, busySince: null, heldPunches: 0, freeBytes: null },
        config: { file: configPath, runningOn: 'file', loadedAt: new Date().toISOString() },
        listeners: [{ listener: 'push', listen: '127.0.0.1:0', listening: true }],
      }),
    );

    opened.length = 0;
    const report = await runChecks({ configPath, env: {} });
    expect(report.checks.find((c) => c.name === 'daemon')?.status).toBe('pass');
    expect(opened.filter((p) => p === t.path('status.json'))).toHaveLength(1);
  });
});
