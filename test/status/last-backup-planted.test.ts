import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readLastBackup } from '../../src/journal/last-backup.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * The record of the last backup (`journal.db.last-backup.json`) lies in the service user's
 * folder, read by root's status, check and restore. A FIFO put at its name hung them for good
 * (found by an adversarial trial); it is now said as no record, and they answer.
 */
describe('a FIFO planted at the last-backup record’s name', () => {
  it('is said as not a record, and status and check answer', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    execFileSync('mkfifo', [s.tmp.path('journal.db.last-backup.json')]);
    const cli = (...args: string[]) => runPunchgate(['--config', s.config, ...args], { timeoutMs: 20_000 });
    const status = await cli('status', '--json');
    expect(JSON.parse(status.stdout).daemon?.running).toBe(false);
    const check = await cli('check', '--quick');
    expect(check.stdout + check.stderr).toMatch(/daemon/);
    // In this process last: the CLI's bounded runs fail first where the read would block.
    expect(readLastBackup(s.tmp.path('journal.db'))).toEqual({
      kind: 'unreadable',
      why: `${s.tmp.path('journal.db.last-backup.json')} is not a plain file`,
    });
  }, 90_000);
});
