/**
 * The removal scripts' looks into /var/lib/punchgate (packaging/debian/prerm and postrm), run
 * here on a folder of the test's, as this user: nothing there can keep a removal waiting. The
 * service user owns that folder and may put a FIFO or a link at any name, even between the
 * script's look at a name and its read of it; and a command run as that user may leave a process
 * behind that holds its output. Quick, no package built (test/package runs the scripts inside
 * dpkg, as root, with a FIFO and links planted).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sh } from '../../bench/lib/package-box.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const tmp = tempDir('punchgate-removal-');
afterAll(() => tmp.cleanup());

const SCRIPTS = ['prerm', 'postrm'] as const;
const text = (s: (typeof SCRIPTS)[number]) => readFileSync(join('packaging/debian', s), 'utf8');
const listOf = (s: (typeof SCRIPTS)[number]) => /^LIST_JOURNALS='[\s\S]*?^'$/m.exec(text(s))?.[0];
const runnerOf = (s: (typeof SCRIPTS)[number]) => /^as_service_for\(\) \{[\s\S]*?^\}$/m.exec(text(s))?.[0];
/** What a step here may take: far more than it needs, far less than a blocked read would (for ever). */
const BOUND_MS = 20_000;

/** A program of the test's, first in PATH, standing in for the box's. */
function shim(bin: string, name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
}

/** A state folder as the service user may leave it: a journal, a FIFO and links at journal names, a backup. */
function stateFolder(name: string) {
  const dir = tmp.path(name);
  mkdirSync(join(dir, 'backups'), { recursive: true });
  const journal = join(dir, 'journal.db');
  writeFileSync(journal, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080)]));
  writeFileSync(join(dir, 'backups', 'journal-20261101T000000Z.db'), readFileSync(journal));
  writeFileSync(join(dir, 'notes.txt'), 'not a journal\n');
  const fifo = join(dir, 'journal.db.before-restore-20261102T000000Z');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  symlinkSync(fifo, join(dir, 'journal.db.before-restore-20261103T000000Z'));
  symlinkSync(journal, join(dir, 'status.txt.tmp'));
  const st = statSync(journal);
  const listed = `${st.size} ${Math.floor(st.mtimeMs / 1000)} ${journal}\n`;
  return { dir, fifo, link: join(dir, 'journal.db.before-restore-20261103T000000Z'), listed };
}

describe('the journal list of the removal scripts (LIST_JOURNALS)', () => {
  it('is the same text in prerm and postrm', () => {
    expect(listOf('prerm')).toBeDefined();
    expect(listOf('postrm')).toBe(listOf('prerm'));
  });

  const list = (dir: string, env: NodeJS.ProcessEnv = process.env) =>
    sh('sh', ['-c', `${listOf('prerm')}\nexec sh -c "$LIST_JOURNALS" sh "$1"`, 'list', dir], {
      env,
      timeoutMs: BOUND_MS,
    });

  it('lists the journal only: a FIFO, links and other files at names beside it are neither opened nor listed', () => {
    const state = stateFolder('plain');
    const r = list(state.dir);
    expect(r.status, r.all).toBe(0);
    expect(r.out).toBe(state.listed);
  });

  it("never waits on a FIFO that took a file's name after find looked (find lists it as a file): it is read without blocking and skipped", () => {
    const state = stateFolder('swapped');
    const bin = tmp.path('swapped-bin');
    mkdirSync(bin);
    const find = spawnSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).stdout.trim();
    // find as it answers when the service user swaps a name between its look and the read.
    shim(
      bin,
      'find',
      `"${find}" "$@"\ncase " $* " in *" -type f "*) printf '%s\\n' "${state.fifo}" "${state.link}" ;; esac`,
    );
    const r = list(state.dir, { ...process.env, PATH: `${bin}:${process.env.PATH}` });
    expect(r.status, r.all).toBe(0);
    expect(r.out).toBe(state.listed);
  });
});

describe('a command of the removal scripts run as the service user (as_service_for)', () => {
  it('is the same text in prerm and postrm, and every look as the service user goes through it', () => {
    expect(runnerOf('prerm')).toBeDefined();
    expect(runnerOf('postrm')).toBe(runnerOf('prerm'));
    for (const s of SCRIPTS) expect(text(s).match(/^[^#\n]*runuser/gm), s).toHaveLength(1);
  });

  /** The runner with runuser standing in (the test is not root) and its files in a folder of the test's. */
  const runner = (name: string) => {
    const dir = tmp.path(name);
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    // runuser -u punchgate -- COMMAND...: COMMAND as this user.
    shim(bin, 'runuser', 'shift 3\nexec "$@"');
    const fn = runnerOf('prerm')!.replaceAll('/run/', `${dir}/`);
    const run = (script: string) =>
      sh('sh', ['-c', `${fn}\n${script}`], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        timeoutMs: BOUND_MS,
      });
    return { dir, run };
  };
  /** Whether a process runs (a zombie waiting for its parent to reap it does not). */
  const running = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it("gives the command's output and exit status, and leaves no file behind", () => {
    const { dir, run } = runner('status');
    const r = run(`got=$(as_service_for 20 sh -c 'echo one; echo two >&2; exit 3'); echo "$? $got"`);
    expect(r.out).toBe('3 one\n');
    expect(spawnSync('ls', [dir], { encoding: 'utf8' }).stdout).toBe('bin\n');
  });

  it('returns when the command ends, though a process it left behind still holds its output', async () => {
    const { dir, run } = runner('left-behind');
    const pidFile = join(dir, 'left.pid');
    const started = Date.now();
    // The command ends at once; what it started in the background runs 10 times the bound.
    const r = run(
      `got=$(as_service_for 20 sh -c 'sleep ${(BOUND_MS / 100).toFixed(0)} & echo $! >${pidFile}; echo listed'); echo "$? $got"`,
    );
    expect(r.out).toBe('0 listed\n');
    expect(Date.now() - started).toBeLessThan(BOUND_MS / 2);
    const left = Number(readFileSync(pidFile, 'utf8'));
    process.kill(left, 'SIGKILL');
    await waitFor(() => !running(left), 10_000, 'the process left behind to be gone');
  });

  it('ends the command past its time, with what it started, and says so (exit 124)', async () => {
    const { dir, run } = runner('past-time');
    const pidFile = join(dir, 'child.pid');
    const started = Date.now();
    const r = run(
      `got=$(as_service_for 1 sh -c 'sleep 600 & echo $! >${pidFile}; echo started; sleep 600'); echo "$? $got"`,
    );
    expect(r.out).toBe('124 started\n');
    expect(Date.now() - started).toBeLessThan(BOUND_MS / 2);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !running(child), 10_000, "the command's own child to be ended with it");
  });
});

describe("the purge's last words when it keeps the state folder (postrm's purge_state)", () => {
  const purgeState = /^purge_state\(\) \{[\s\S]*?^\}$/m.exec(text('postrm'))?.[0];
  /** purge_state with what_to_keep saying `keep`, in a folder of the test's. */
  const purge = (name: string, keep: string[]) => {
    const dir = tmp.path(name);
    mkdirSync(dir, { recursive: true });
    const lines = keep.map((l) => `  ${dir}/${l}`);
    return sh(
      'sh',
      [
        '-c',
        `STATE='${dir}'\nwhat_to_keep() { printf '%s\\n' ${lines.map((l) => `'${l}'`).join(' ')}; }\n${purgeState}\npurge_state`,
      ],
      { timeoutMs: BOUND_MS },
    );
  };

  it('with backups only (a new admin purged a box whose journal owed nothing): no word of undelivered punches', () => {
    expect(purgeState).toBeDefined();
    const r = purge('backups-only', ['backups: 2 backup file(s) of the journal']);
    expect(r.status, r.all).toBe(0);
    expect(r.out).toContain('which holds attendance records:');
    expect(r.out).toContain('backups: 2 backup file(s) of the journal');
    expect(r.out).not.toContain('Undelivered punches');
    expect(r.out).toContain('No journal there owes the HRMS a punch');
  });

  it('with a journal that owes punches (or could not be counted): says how they reach the HRMS', () => {
    for (const line of [
      'journal.db: a journal holding 20 undelivered punches',
      'journal.db: a journal whose undelivered punches could not be counted',
    ]) {
      const r = purge(`owed-${line.length}`, [line, 'backups: 2 backup file(s) of the journal']);
      expect(r.status, r.all).toBe(0);
      expect(r.out, line).toContain('Undelivered punches reach the HRMS once punchgate runs on that journal again');
      expect(r.out, line).not.toContain('No journal there owes');
    }
  });
});
