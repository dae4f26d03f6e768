import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { OwnerLock } from '../../src/journal/lock.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/**
 * While punchgate run holds the journal, `punchgate status` and `check` (run as root) read what it
 * last said in status.json, in the service user's folder. That user holds the journal lock as the
 * daemon does and puts a FIFO, or a link, at status.json's name: found by an adversarial trial,
 * root's status and check then waited for a writer for good.
 */
describe('a thing planted at status.json’s name while the journal is held', () => {
  it('a FIFO or a link: status and check answer, the thing unread', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const lock = OwnerLock.acquire(s.tmp.path('journal.db'));
    cleanups.push(() => lock.release());
    writeFileSync(s.tmp.path('status.txt'), 'fresh\n'); // the status log is fresh: its twin is read
    const cli = (...args: string[]) => runPunchgate(['--config', s.config, ...args], { timeoutMs: 20_000 });

    execFileSync('mkfifo', [s.tmp.path('status.json')]);
    const status = await cli('status', '--json');
    expect(status.status).not.toBeNull();
    expect(JSON.parse(status.stdout).daemon?.running).toBe(true);
    const check = await cli('check', '--quick');
    expect(check.stdout + check.stderr).toMatch(/daemon/);

    rmSync(s.tmp.path('status.json'));
    const elsewhere = s.tmp.path('elsewhere.json');
    writeFileSync(
      elsewhere,
      JSON.stringify({ config: { file: '/root/other-3c1d.yaml', loadedAt: '2026-11-30T10:00:00Z' } }),
    );
    symlinkSync(elsewhere, s.tmp.path('status.json'));
    const quick = await cli('check', '--quick');
    expect(quick.stdout + quick.stderr).not.toContain('other-3c1d');
  }, 90_000);
});
