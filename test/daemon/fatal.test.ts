import { spawn } from 'node:child_process';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startStack } from './stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A journal that cannot grow (a file-size limit stands in for a full disk): the daemon must
 * end with one clear line and a non-zero exit, so that systemd restarts it, and never spin.
 */
describe('fatal journal conditions', () => {
  it('exits 75 (restarted) with one clear line when the journal cannot be written', async () => {
    const stack = await startStack();
    try {
      const t = stack.terminals[0]!;
      for (let i = 0; i < 3000; i++)
        t.addPunch({
          userId: String(10_000 + i),
          logTime: `2026-11-2${1 + Math.floor(i / 1440)} ${String(Math.floor((i % 1440) / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
        });
      // The journal exists (made as the daemon makes it at its first start); it must not grow.
      Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' }).close();
      // ulimit -f in 512-byte blocks: the journal may not grow past ~96 KiB. SIGXFSZ is ignored so
      // the write fails with EFBIG instead of killing the process.
      const { code, out } = await runWithFileLimit(stack.configPath, 192);
      expectOneFullDiskLine(code, out);
    } finally {
      await stack.stop();
    }
  });
  it('exits 75 (restarted) with one clear line when the journal fails at its first write of the start', async () => {
    // A journal left by a crash on a full disk (a trial: "punchgate: database or disk is full",
    // exit 1, no path, no fix): its WAL holds commits not yet copied into the file, so the
    // start's first write (delivery's sinks) must grow the WAL, which the disk refuses.
    const stack = await startStack();
    try {
      leaveCrashedJournal(
        stack.tmp.path('journal.db'),
        `INSERT INTO punches (terminal, biometric_code, log_time, site, state, created_at, updated_at, delivered_at)
         VALUES ('gate-1', ?, '2026-11-01 08:00:00', 'plant-t', 'delivered', 1, 1, 1)`,
      );
      // 32 KiB: room for the -shm, not for one more frame of the WAL (over 300 KiB).
      const { code, out } = await runWithFileLimit(stack.configPath, 64);
      expectOneFullDiskLine(code, out);
    } finally {
      await stack.stop();
    }
  });
  it('exits 75 (restarted) with one clear line when the start cannot return a dead process claims (found by a resource trial)', async () => {
    // A daemon ended by a full disk while it delivered leaves a claim: the next start returns it
    // to the queue first, which the full disk refuses; the journal is then closed, and that
    // close's checkpoint failed too and hid the first failure ("punchgate: database or disk is
    // full", exit 1, no path, no fix).
    const stack = await startStack();
    try {
      leaveCrashedJournal(
        stack.tmp.path('journal.db'),
        `INSERT INTO punches (terminal, biometric_code, log_time, site, state, created_at, updated_at, claimed_by, claimed_from)
         VALUES ('gate-1', ?, '2026-11-01 08:00:00', 'plant-t', 'inflight', 1, 1, 'gone-holder', 'pending')`,
      );
      const { code, out } = await runWithFileLimit(stack.configPath, 64);
      // Said before the daemon's log starts: one line on stderr, as every failed start says it.
      expect(code, out).toBe(75);
      expect(out).toMatch(
        /^punchgate: the journal \S+journal\.db cannot (grow|be written)[^\n]*\(SQLITE_(FULL|IOERR)[^\n]*: (free space|check the disk)/m,
      );
      expect(out).not.toMatch(/database or disk is full\n|disk I\/O error\n/);
    } finally {
      await stack.stop();
    }
  });
});

/**
 * `punchgate run` with files limited to `blocks` of 512 bytes (a disk with no room stands in):
 * SIGXFSZ is ignored so that a write past the limit fails with EFBIG instead of killing the
 * process. Resolves with its exit code and everything it wrote.
 */
async function runWithFileLimit(configPath: string, blocks: number): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    'sh',
    [
      '-c',
      `trap '' XFSZ; ulimit -f ${blocks}; exec "${process.execPath}" dist/punchgate.js run --config "${configPath}"`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NOTIFY_SOCKET: '' } },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  await waitFor(() => child.exitCode !== null, 20_000, 'the daemon exits');
  return { code: await exited, out };
}

/** Exit 75 (the unit restarts it) and one fatal line: the journal's path, what is wrong (it cannot grow), and what to do. */
function expectOneFullDiskLine(code: number | null, out: string): void {
  expect(code).toBe(75);
  const fatalLines = out.split('\n').filter((l) => /"level":60/.test(l));
  expect(fatalLines).toHaveLength(1);
  expect(fatalLines[0]).toMatch(
    /fatal: the journal \S+journal\.db cannot (grow|be written)[^"]*\(SQLITE_(FULL|IOERR)[^"]*: (free space|check the disk)/,
  );
}

/**
 * A journal at `path` holding 30 punches added by `insert` (one `?`: the code) only in its WAL,
 * the files as a crash leaves them (the WAL not checkpointed, no -shm): the next start must grow
 * the WAL before it can write anything.
 */
function leaveCrashedJournal(path: string, insert: string): void {
  Journal.open({ path, site: 'plant-t', mode: 'owner' }).close();
  const db = new Database(path);
  db.pragma('wal_autocheckpoint = 0');
  const add = db.prepare(insert);
  for (let i = 0; i < 30; i++) add.run(String(1000 + i));
  copyFileSync(path, `${path}.crash`);
  copyFileSync(`${path}-wal`, `${path}.crash-wal`);
  db.close();
  renameSync(`${path}.crash`, path);
  renameSync(`${path}.crash-wal`, `${path}-wal`);
  rmSync(`${path}-shm`, { force: true });
}
