import * as fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkDaemon } from '../../src/check/daemon-check.js';
import type { Config } from '../../src/config/schema.js';
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
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/**
 * `punchgate check` read the daemon's status.json once for the journal's busy state, once for its
 * checkpoints and once for the config it runs on: three reads of a file the daemon replaces every
 * few seconds, so one check could say things of three different moments. Read once.
 */
describe('punchgate check of a running daemon', () => {
  it("reads the daemon's status.json once, and says what it holds", () => {
    const t = tempDir('punchgate-once-');
    cleanups.push(t.cleanup);
    const journal = t.path('journal.db');
    Journal.open({ path: journal, site: 'plant-a', mode: 'owner' }).close();
    const lock = OwnerLock.acquire(journal);
    cleanups.push(() => lock.release());
    const now = Date.now();
    fs.writeFileSync(t.path('status.txt'), 'status\n');
    fs.writeFileSync(
      t.path('status.json'),
      JSON.stringify({
        journal: { path: journal, busySince: null, heldPunches: 0, freeBytes: null },
        config: { file: t.path('punchgate.yaml'), runningOn: 'file', loadedAt: new Date(now).toISOString() },
      }),
    );
    const config = {
      journal: { path: journal },
      status: { path: t.path('status.txt'), intervalMs: 10_000 },
    } as unknown as Config;

    opened.length = 0;
    const r = checkDaemon(config, { now: () => now }, { required: false });
    expect(r.status).toBe('pass');
    expect(r.detail).toContain(`it runs on ${t.path('punchgate.yaml')} as loaded at`);
    expect(opened.filter((p) => p === t.path('status.json'))).toHaveLength(1);
  });
});
