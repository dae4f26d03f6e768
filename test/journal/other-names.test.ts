import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/index.js';
import { canonicalJournalPath } from '../../src/journal/journal-file.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'names-token-3e8a';
const PUNCHES = 300;

/**
 * One journal, one deliverer, whatever the path: a second `punchgate run` or a `flush` that
 * reaches the live journal through another path (a symlink to the file, a symlinked folder,
 * `..` components) meets the daemon's run lock and its claims, and a hard link (a second name
 * SQLite cannot tell from the first) is refused by every command. Real child processes, a slow
 * HRMS simulator, 300 punches: each one reaches the HRMS exactly once.
 */
describe('the journal through another path', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup() {
    const tmp = tempDir('punchgate-names-');
    cleanups.push(() => tmp.cleanup());
    const hrms: HrmsSim = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => hrms.stop());
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    mkdirSync(tmp.path('live'));
    mkdirSync(tmp.path('elsewhere'));
    const config = (name: string, journalPath: string) => {
      const path = tmp.path(name);
      writeFileSync(
        path,
        stringify({
          site: 'plant-n',
          journal: { path: journalPath },
          hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 10_000, connectTimeoutMs: 5000 },
          delivery: { batchSize: 25, pollIntervalMs: 100 },
          status: { intervalMs: 500, listen: '127.0.0.1:0', path: tmp.path(`${name}.status.txt`) },
          terminals: [],
        }),
      );
      return path;
    };
    const live = tmp.path('live/journal.db');
    const journal = Journal.open({ path: live, site: 'plant-n', mode: 'owner' });
    journal.ingest(
      Array.from({ length: PUNCHES }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(1000 + (i % 50)),
        logTime: `2026-11-22 ${String(6 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      })),
    );
    journal.close();
    return { tmp, hrms, config, live };
  }

  /** devicelogIds the HRMS received more than once. */
  const sentTwice = (hrms: HrmsSim) => {
    const seen = new Map<string, number>();
    for (const p of hrms.received()) seen.set(p.devicelogId ?? '', (seen.get(p.devicelogId ?? '') ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  };

  async function daemonWithBatchOut(s: Awaited<ReturnType<typeof setup>>) {
    s.hrms.setFaults({ latencyMs: 1200 });
    const d = spawnDaemon(s.config('live.yaml', s.live));
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => s.hrms.requests() > 0, 15_000, 'the daemon has a batch out');
    return d;
  }

  it('a flush through a symlink, a symlinked folder or `..` leaves the daemon its claims: every punch reaches the HRMS once', async () => {
    const s = await setup();
    symlinkSync(s.live, s.tmp.path('elsewhere/link.db'));
    symlinkSync(s.tmp.path('live'), s.tmp.path('folder-link'));
    const paths = [
      s.tmp.path('elsewhere/link.db'),
      s.tmp.path('folder-link/journal.db'),
      `${s.tmp.path('elsewhere')}/../folder-link/./journal.db`,
    ];
    for (const p of paths) expect(canonicalJournalPath(p)).toBe(canonicalJournalPath(s.live));
    const d = await daemonWithBatchOut(s);
    // Each flush starts while the daemon has a batch out; it would see the daemon's claims as
    // abandoned if it looked for the daemon's holder files beside its own path.
    const flushes = paths.map((p, i) =>
      runPunchgate(['--config', s.config(`other-${i}.yaml`, p), 'flush', '--max-wait', '60'], { timeoutMs: 90_000 }),
    );
    const results = await Promise.all(flushes);
    for (const r of results) expect(r.status, r.stdout + r.stderr).toBe(0);
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered');
    expect(sentTwice(s.hrms)).toEqual([]);
    expect(new Set(s.hrms.received().map((p) => p.devicelogId)).size).toBe(PUNCHES);
    expect(d.output()).not.toMatch(/claimed by a process that is gone/);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 120_000);

  it('a second run through a symlink or a symlinked folder is refused while the daemon runs', async () => {
    const s = await setup();
    symlinkSync(s.live, s.tmp.path('elsewhere/link.db'));
    symlinkSync(s.tmp.path('live'), s.tmp.path('folder-link'));
    const d = await daemonWithBatchOut(s);
    for (const [i, p] of [s.tmp.path('elsewhere/link.db'), s.tmp.path('folder-link/journal.db')].entries()) {
      const second = spawnDaemon(s.config(`second-${i}.yaml`, p));
      cleanups.push(() => second.child.exitCode === null && second.child.kill('SIGKILL'));
      const r = await second.exited;
      expect(r.code, second.output()).toBe(75);
      expect(second.output()).toMatch(/already in use by another punchgate run/);
    }
    // Both refused while a batch was out; the rest need not take 1.2 s a batch.
    s.hrms.setFaults({ latencyMs: 0 });
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered');
    expect(sentTwice(s.hrms)).toEqual([]);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 120_000);

  it('a hard link is refused by flush, status and run (exit 74, how to find the other name); once removed, every punch reaches the HRMS once', async () => {
    const s = await setup();
    const d = await daemonWithBatchOut(s);
    const link = s.tmp.path('elsewhere/hard.db');
    linkSync(s.live, link);
    const other = s.config('hard.yaml', link);
    const flush = await runPunchgate(['--config', other, 'flush', '--max-wait', '5']);
    expect(flush.status, flush.stdout + flush.stderr).toBe(74);
    expect(flush.stderr).toMatch(/has 2 names \(hard links/);
    expect(flush.stderr).toContain(`find / -xdev -samefile ${link}`);
    const status = await runPunchgate(['--config', other, 'status']);
    expect(status.status, status.stdout + status.stderr).toBe(74);
    const check = await runPunchgate(['--config', other, 'check', '--quick']);
    expect(check.status).not.toBe(0);
    expect(check.stdout + check.stderr).toMatch(/hard.db has 2 names/);
    const second = spawnDaemon(other);
    cleanups.push(() => second.child.exitCode === null && second.child.kill('SIGKILL'));
    expect((await second.exited).code, second.output()).not.toBe(0);
    expect(second.output()).not.toMatch(/punchgate running/);
    // The live name is refused too while the other exists: no command can tell which is which.
    const sameName = await runPunchgate(['--config', s.config('live-again.yaml', s.live), 'flush', '--max-wait', '5']);
    expect(sameName.status).toBe(74);
    unlinkSync(link);
    s.hrms.setFaults({ latencyMs: 0 });
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered');
    expect(sentTwice(s.hrms)).toEqual([]);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    const j = Journal.open({ path: s.live, site: 'plant-n', mode: 'readonly' });
    expect(j.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0 });
    j.close();
  }, 120_000);

  /** `mount --bind` of the journal file alone onto `target` (root only); undefined where this box cannot. */
  function bindMount(file: string, target: string): boolean {
    writeFileSync(target, '');
    try {
      execFileSync('mount', ['--bind', file, target], { stdio: 'ignore' });
    } catch {
      return false;
    }
    cleanups.push(() => execFileSync('umount', ['-l', target], { stdio: 'ignore' }));
    return true;
  }

  it('a single-file bind mount (the same file, another name, no second link): a second run, a flush and restore --force through it are refused while the daemon runs', async (ctx) => {
    const s = await setup();
    const backup = s.tmp.path('backup.db');
    expect((await runPunchgate(['--config', s.config('b.yaml', s.live), 'backup', backup])).status).toBe(0);
    const bound = s.tmp.path('elsewhere/journal.db');
    if (!bindMount(s.live, bound)) return ctx.skip('mount --bind needs root and CAP_SYS_ADMIN');
    const d = await daemonWithBatchOut(s);
    const other = s.config('bound.yaml', bound);
    const second = spawnDaemon(other);
    cleanups.push(() => second.child.exitCode === null && second.child.kill('SIGKILL'));
    expect((await second.exited).code, second.output()).toBe(74);
    expect(second.output()).toMatch(/is open in another process \(pid \d+\) by another name/);
    expect(second.output()).not.toMatch(/punchgate running/);
    const flush = await runPunchgate(['--config', other, 'flush', '--max-wait', '5']);
    expect(flush.status, flush.stdout + flush.stderr).toBe(74);
    const check = await runPunchgate(['--config', other, 'check', '--quick']);
    expect(check.stdout).toMatch(/FAIL.*journal.* is open in another process \(pid \d+\) by another name/);
    const restore = await runPunchgate(['--config', other, 'restore', '--force', backup]);
    expect(restore.status, restore.stdout + restore.stderr).toBe(75);
    expect(restore.stderr).toMatch(/is open in another process \(pid \d+, through another name of the same file\)/);
    s.hrms.setFaults({ latencyMs: 0 });
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered');
    expect(sentTwice(s.hrms)).toEqual([]);
    expect(s.hrms.received()).toHaveLength(PUNCHES);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    // Stopped: the bound name is a journal like any other (one name, nobody has it open).
    expect((await runPunchgate(['--config', other, 'status'])).status).toBe(0);
  }, 120_000);

  it('restore --force through a hard link is refused, with the daemon running and stopped (it would keep the old file)', async () => {
    const s = await setup();
    const backup = s.tmp.path('backup.db');
    expect((await runPunchgate(['--config', s.config('b.yaml', s.live), 'backup', backup])).status).toBe(0);
    const d = await daemonWithBatchOut(s);
    const link = s.tmp.path('elsewhere/hard.db');
    linkSync(s.live, link);
    const viaLink = await runPunchgate(['--config', s.config('hard.yaml', link), 'restore', '--force', backup]);
    expect(viaLink.status, viaLink.stdout + viaLink.stderr).toBe(74);
    expect(viaLink.stderr).toMatch(/has 2 names \(hard links/);
    // Through its own name, under the running daemon: refused too (the file is open).
    unlinkSync(link);
    const live = await runPunchgate(['--config', s.config('live.yaml', s.live), 'restore', '--force', backup]);
    expect(live.status, live.stdout + live.stderr).toBe(75);
    s.hrms.setFaults({ latencyMs: 0 });
    await waitFor(() => s.hrms.attendance().length >= PUNCHES, 60_000, 'every punch delivered');
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    linkSync(s.live, link);
    const stopped = await runPunchgate(['--config', s.config('hard.yaml', link), 'restore', '--force', backup]);
    expect(stopped.status, stopped.stdout + stopped.stderr).toBe(74);
    expect(sentTwice(s.hrms)).toEqual([]);
  }, 120_000);

  it('names a file that does not exist yet by its real folder, and a dangling symlink by its target', () => {
    const tmp = tempDir('punchgate-names-');
    cleanups.push(() => tmp.cleanup());
    mkdirSync(tmp.path('real'));
    symlinkSync(tmp.path('real'), tmp.path('via'));
    symlinkSync(tmp.path('real/target.db'), tmp.path('dangling.db'));
    const real = canonicalJournalPath(tmp.path('real'));
    expect(canonicalJournalPath(tmp.path('via/new.db'))).toBe(`${real}/new.db`);
    expect(canonicalJournalPath(tmp.path('dangling.db'))).toBe(`${real}/target.db`);
  });
});
