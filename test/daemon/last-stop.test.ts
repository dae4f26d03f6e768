import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { lastStopPath } from '../../src/status/last-stop.js';
import type { StatusReport } from '../../src/status/index.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';
import { zeroOldPunchPage } from '../helpers/damaged-journal.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon } from './stack.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const csv = (n: number) =>
  `biometriccode,logDate\n${Array.from({ length: n }, (_, i) => `${1000 + (i % 50)},2026-10-01 ${String(6 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`).join('\n')}\n`;

/**
 * Stopped by a damaged journal (exit 74, not restarted, at its first claim), and started again by
 * systemd every 5 s to stop again, the daemon kept no record of why: `punchgate status` said only "not running
 * ... start it" (found by a damaged-journal trial). Its last line is now kept beside the journal
 * and said by the status (text and --json) until a later start succeeds.
 */
describe('why punchgate run last stopped, said by the status', () => {
  it('names the damaged journal and the fix after exit 74, and no longer once a start succeeds', async () => {
    const s = cliSandbox({ hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' }, status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    writeFileSync(s.tmp.path('token'), 'last-stop-token-7c1e9a\n', { mode: 0o600 });
    writeFileSync(s.tmp.path('a.csv'), csv(3000));
    expect((await s.cli('import', s.tmp.path('a.csv'))).status).toBe(0);
    const journal = s.tmp.path('journal.db');
    zeroOldPunchPage(journal);

    expect((await s.cli('run')).status).toBe(74);

    const text = await s.cli('status');
    const down = text.stdout.split('\n').find((l) => l.includes('punchgate run is not running'));
    expect(down).toMatch(/the last stop recorded, at .+: exit code 74, saying: .*is damaged \(SQLITE_CORRUPT/);
    expect(down).toContain('A restart does not mend this');
    expect(down).toContain('systemd does not start punchgate again (exit 74)');
    expect(text.stdout).toContain('do what its last line says above');
    expect(text.stdout).not.toContain('last-stop-token-7c1e9a');
    const json = JSON.parse((await s.cli('status', '--json')).stdout) as StatusReport;
    expect(json.daemon?.running).toBe(false);
    expect(json.daemon?.lastStop?.exitCode).toBe(74);
    expect(json.daemon?.lastStop?.reason).toContain('A restart does not mend this');
    expect(json.alertItems.find((a) => a.kind === 'daemon-down')?.cause).toContain(': exit code 74, saying: ');
    // check --quick (the container health check) says it too.
    const quick = await s.cli('check', '--quick');
    expect(quick.stdout + quick.stderr).toMatch(
      /FAIL daemon: .*the last stop recorded, at .+: exit code 74, saying: .*is damaged/,
    );
    // The status log's last state, the first file an admin opens, says it stopped and why.
    expect(readFileSync(s.tmp.path('status.txt'), 'utf8')).toMatch(
      /^punchgate run STOPPED at .+ with exit code 74: .*is damaged \(SQLITE_CORRUPT.*A restart does not mend/,
    );
    const last = JSON.parse(readFileSync(s.tmp.path('status.json'), 'utf8')) as StatusReport;
    expect(last.daemon?.lastStop?.exitCode).toBe(74);
    for (const f of ['status.txt', 'status.json', 'journal.db.last-stop.json'])
      expect(readFileSync(s.tmp.path(f), 'utf8')).not.toContain('last-stop-token-7c1e9a');

    // The journal restored (here: a new one): the next start succeeds, and the reason is gone.
    for (const f of [journal, `${journal}-wal`, `${journal}-shm`]) rmSync(f, { force: true });
    Journal.open({ path: journal, site: 'plant-a', mode: 'owner' }).close();
    const d = spawnDaemon(s.config);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(
      () => !existsSync(lastStopPath(journal)),
      20_000,
      'the record of the last stop removed by a good start',
    );
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);

    const after = await s.cli('status', '--json');
    const report = JSON.parse(after.stdout) as StatusReport;
    expect(report.daemon?.running).toBe(false);
    expect(report.daemon?.lastStop).toBeUndefined();
    expect(report.alertItems.find((a) => a.kind === 'daemon-down')?.cause).not.toContain('last stop');
  }, 90_000);

  it('after a start kept out by another process holding the journal (exit 75): busy, and who to look for', async () => {
    const s = cliSandbox({ hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' }, status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    writeFileSync(s.tmp.path('token'), 'busy-token-19ce04\n', { mode: 0o600 });
    const journal = s.tmp.path('journal.db');
    // Another writer (an import, a backup, an sqlite3 shell) holds the write lock past the start's
    // own wait for it (30 s): the start gives up with 75 (temporary), which systemd retries.
    const holder = spawn(process.execPath, ['test/fixtures/hold-write-lock.mjs', journal, '120000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => holder.exitCode === null && holder.kill('SIGKILL'));
    let held = '';
    holder.stdout.on('data', (b: Buffer) => (held += b.toString()));
    await waitFor(() => held.includes('held'), 10_000, 'the other process holds the write lock');

    // Its open and its first write each wait 30 s for the lock before it gives up.
    const run = await runPunchgate(['--config', s.config, 'run'], { timeoutMs: 150_000 });
    expect(run.status).toBe(75);
    holder.kill('SIGKILL');

    const json = JSON.parse((await s.cli('status', '--json')).stdout) as StatusReport;
    expect(json.daemon?.running).toBe(false);
    expect(json.daemon?.lastStop?.exitCode).toBe(75);
    expect(json.daemon?.lastStop?.reason).toMatch(
      /^the journal .*journal\.db is busy: another process holds its write lock/,
    );
    expect(json.daemon?.lastStop?.reason).toContain(`fuser -v ${journal}`);
    const quick = await s.cli('check', '--quick');
    expect(quick.stdout).toMatch(/FAIL daemon: .*exit code 75.*is busy: another process holds its write lock/);
    expect(readFileSync(lastStopPath(journal), 'utf8')).not.toContain('busy-token-19ce04');
  }, 200_000);

  it('after an unexpected crash (exit 70): its error, without the HRMS token it quoted', async () => {
    const s = cliSandbox({ hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' }, status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const token = 'crash-token-4b8d2f6a91';
    writeFileSync(s.tmp.path('token'), `${token}\n`, { mode: 0o600 });
    // A defect nobody caught, on cue: thrown from a signal handler the daemon does not own.
    const bug = `process.on('SIGUSR2', () => { throw new Error('bug: sent ${token} nowhere'); });`;
    const d = spawnDaemon(s.config, [], { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(bug)}` });
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => d.output().includes('"version"'), 20_000, 'the daemon started');
    d.child.kill('SIGUSR2');
    expect((await d.exited).code).toBe(70);

    const json = JSON.parse((await s.cli('status', '--json')).stdout) as StatusReport;
    expect(json.daemon?.lastStop?.exitCode).toBe(70);
    expect(json.daemon?.lastStop?.reason).toMatch(/^unexpected error: bug: sent \[REDACTED\] nowhere; exiting/);
    for (const f of ['status.txt', 'status.json', 'journal.db.last-stop.json'])
      expect(readFileSync(s.tmp.path(f), 'utf8')).not.toContain(token);

    // Then the config file is broken. The daemon kept a copy of the last config that loaded: a
    // start runs on it (no exit 78), as the fix says; the fix said a start would stop with 78.
    appendFileSync(s.config, 'terminals: [\n');
    const broken = JSON.parse((await s.cli('status', '--json')).stdout) as StatusReport;
    const down = broken.alertItems.find((a) => a.kind === 'daemon-down')!;
    expect(down.cause).toMatch(/; the last stop recorded, at .+: exit code 70, saying: unexpected error/);
    expect(down.fix).toMatch(
      /^the config file does not load now, so a start would run on its last good copy .*correct the file/,
    );
    expect(down.fix).not.toContain('78');
    const quick = await s.cli('check', '--quick');
    expect(quick.stdout).toMatch(
      /FAIL daemon: .*exit code 70.* — the config file does not load now, so a start would run on its last good copy/,
    );
    // What a start really does: it runs, on the copy.
    const again = spawnDaemon(s.config);
    cleanups.push(() => again.child.exitCode === null && again.child.kill('SIGKILL'));
    await waitFor(
      () =>
        (again.output().includes('punchgate runs on the last good config') && again.output().includes('"version"')) ||
        again.child.exitCode !== null,
      20_000,
      'the start on the copy',
    );
    expect(again.child.exitCode).toBeNull();
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 60_000);
});
