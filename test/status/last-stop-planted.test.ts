import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readLastStop } from '../../src/status/last-stop.js';
import type { StatusReport } from '../../src/status/index.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const record = (reason: string) => `${JSON.stringify({ at: '2026-11-30T10:00:00Z', exitCode: 74, reason })}\n`;

/**
 * The record of why punchgate run stopped (`journal.db.last-stop.json`) lies in the journal's
 * folder, the service user's; root reads it with `punchgate status` and `check`. Whatever that
 * user puts at its name must not block, lead or flood them (found by an adversarial trial: a
 * FIFO there hung root's status and check for good, deaf to Ctrl-C's SIGINT only by luck; a
 * link had root read and show a file only root can read).
 */
describe('a thing planted at the last-stop record’s name', () => {
  it('a FIFO: status and check --quick answer, and say no last stop', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    execFileSync('mkfifo', [s.tmp.path('journal.db.last-stop.json')]);
    // Child processes with a bound: a status that blocks is killed, and the test fails on that.
    const cli = (...args: string[]) => runPunchgate(['--config', s.config, ...args], { timeoutMs: 20_000 });
    const status = await cli('status', '--json');
    const json = JSON.parse(status.stdout) as StatusReport;
    expect(json.daemon?.running).toBe(false);
    expect(json.daemon?.lastStop).toBeUndefined();
    const quick = await cli('check', '--quick');
    expect(quick.stdout + quick.stderr).toMatch(/punchgate run is not running/);
    expect(quick.stdout + quick.stderr).not.toMatch(/last stopped/);
  }, 90_000);

  it('a symbolic link to another file that reads as a record: not followed', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const elsewhere = s.tmp.path('roots-own.json');
    writeFileSync(elsewhere, record('secret-of-root-3f9a'), { mode: 0o600 });
    symlinkSync(elsewhere, s.tmp.path('journal.db.last-stop.json'));
    expect(readLastStop(s.tmp.path('journal.db'))).toBeUndefined();
    const text = await s.cli('status');
    expect(text.stdout).toMatch(/punchgate run is not running/);
    expect(text.stdout).not.toContain('secret-of-root-3f9a');
  }, 60_000);

  it('a huge file is not read; a record of escapes is shown escaped', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const at = s.tmp.path('journal.db.last-stop.json');
    // A record the daemon never wrote: a megabyte of blanks after it (JSON reads them as nothing).
    writeFileSync(at, record('padded') + ' '.repeat(1 << 20));
    expect(readLastStop(s.tmp.path('journal.db'))).toBeUndefined();
    writeFileSync(at, record('x'));
    truncateSync(at, 2 ** 30); // sparse: a gigabyte on no disk
    expect(readLastStop(s.tmp.path('journal.db'))).toBeUndefined();

    writeFileSync(at, record('damaged\u001b[2J\u001b[31m forged\rline\u202e'));
    const text = await s.cli('status');
    const down = text.stdout.split('\n').find((l) => l.includes('punchgate run is not running'));
    expect(down).toContain('saying: damaged\\x1b[2J\\x1b[31m forged\\x0dline\\u202e');
    for (const c of ['\u001b', '\r', '\u202e']) expect(text.stdout).not.toContain(c);
  }, 60_000);

  /**
   * punchgate run, stopping (here: its journal is no database, exit 65), puts why on top of its
   * status log. A FIFO at status.txt's name held it at that exit for good, deaf to systemd's
   * SIGTERM until its SIGKILL (found by an adversarial trial): it now exits, the FIFO unread.
   */
  it('a FIFO at status.txt: punchgate run stopping on a damaged journal still exits, and says why in the record', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    for (const f of ['journal.db-wal', 'journal.db-shm']) rmSync(s.tmp.path(f), { force: true });
    writeFileSync(s.tmp.path('journal.db'), Buffer.alloc(8192, 0x5a));
    execFileSync('mkfifo', [s.tmp.path('status.txt')]);
    const run = await runPunchgate(['--config', s.config, 'run'], { timeoutMs: 20_000 });
    expect(run.status).toBe(65);
    expect(readLastStop(s.tmp.path('journal.db'))?.exitCode).toBe(65);
  }, 60_000);
});
