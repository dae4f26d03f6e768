import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { spawnDaemon } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A journal is never silently replaced, and a journal that cannot be used stops every command
 * with exit 74 and one line naming the path and what to do (real child processes).
 */
describe('a journal that cannot be used', () => {
  let tmp: ReturnType<typeof tempDir>;
  afterEach(() => tmp.cleanup());

  function setup(): { config: string; journal: string } {
    tmp = tempDir('punchgate-refusal-');
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-r',
        journal: { path: 'state/journal.db' },
        // Nothing listens there: the refused commands never get as far as the network.
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token', connectTimeoutMs: 500, timeoutMs: 500 },
        status: { intervalMs: 1000 },
        terminals: [],
      }),
    );
    writeFileSync(tmp.path('token'), 'tok\n');
    return { config, journal: tmp.path('state/journal.db') };
  }

  /** One line on stderr, naming the path. */
  const oneLine = (stderr: string, path: string) => {
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path);
    return lines[0]!;
  };

  it('a 0-byte journal is refused by run, status and every other command with exit 74, and left as it is', async () => {
    const { config, journal } = setup();
    // What some file systems leave after a crash.
    mkdirSync(tmp.path('state'));
    writeFileSync(journal, '');
    for (const args of [
      ['run'],
      ['status'],
      ['status', '--json'],
      ['punches'],
      ['punches', 'retry'],
      ['punches', 'release'],
      ['flush', '--max-wait', '0'],
      ['terminals'],
    ]) {
      const r = await runPunchgate(['--config', config, ...args]);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(74);
      const line = oneLine(r.stderr, journal);
      expect(line).toMatch(/is empty \(0 bytes\).*restore the journal from a backup/);
      expect(statSync(journal).size).toBe(0);
    }
    // check says the same in its own words (and its own exit code).
    const check = await runPunchgate(['--config', config, 'check', '--quick']);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(
      /FAIL journal: \S+journal\.db is empty \(0 bytes\).*restore the journal from a backup/,
    );
    expect(statSync(journal).size).toBe(0);
  }, 120_000);

  it('read-only commands never create a journal; run creates one only where no file exists', async () => {
    const { config, journal } = setup();
    for (const args of [['status'], ['punches'], ['terminals'], ['punches', 'export'], ['flush', '--max-wait', '0']]) {
      const r = await runPunchgate(['--config', config, ...args]);
      expect(r.status, args.join(' ')).toBe(74);
      expect(oneLine(r.stderr, journal)).toMatch(/does not exist: punchgate run creates it/);
      expect(existsSync(journal)).toBe(false);
    }
    // The admin's own SQLite file (another program's database) at journal.path is not taken over.
    mkdirSync(tmp.path('state'));
    const other = new Database(journal);
    other.exec('CREATE TABLE cars (plate TEXT)');
    other.close();
    for (const args of [['run'], ['status']]) {
      const r = await runPunchgate(['--config', config, ...args]);
      expect(r.status, args.join(' ')).toBe(74);
      expect(oneLine(r.stderr, journal)).toMatch(/is not a punchgate journal .*it has cars.*move this file away/);
    }
    const after = new Database(journal, { readonly: true });
    expect(after.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all()).toEqual([{ name: 'cars' }]);
    after.close();
  });

  it('a damaged journal at start: exit 74 (run: not restarted) with the path and how to recover it', async () => {
    const { config, journal } = setup();
    mkdirSync(tmp.path('state'));
    writeFileSync(journal, Buffer.alloc(8192, 0x5a));
    for (const args of [['run'], ['status']]) {
      const r = await runPunchgate(['--config', config, ...args]);
      expect(r.status, args.join(' ')).toBe(74);
      expect(oneLine(r.stderr, journal)).toMatch(/SQLITE_NOTADB.*\.dump.*punchgate restore --force/);
      if (args[0] === 'run') expect(r.stderr).toContain('systemd does not start punchgate again (exit 74)');
    }
  });

  it('a journal this user may not write, or whose folder it may not write, at start: exit 74 with the path and the fix', async () => {
    const { config, journal } = setup();
    makeJournal(config);
    // As root, run as nobody (the files stay root's); otherwise take the write bits away.
    const asRoot = process.getuid?.() === 0;
    const as = asRoot ? { uid: 65534, gid: 65534 } : undefined;
    chmodSync(tmp.dir, 0o755);
    chmodSync(config, 0o644);
    chmodSync(tmp.path('token'), 0o644);
    for (const f of readdirSync(tmp.path('state'))) chmodSync(tmp.path(`state/${f}`), asRoot ? 0o644 : 0o444);
    chmodSync(tmp.path('state'), asRoot ? 0o755 : 0o555);
    try {
      const r = await runPunchgate(['--config', config, 'run'], { as });
      expect(r.status, r.stderr).toBe(74);
      const line = oneLine(r.stderr, journal);
      expect(line).toMatch(/cannot be (read|written) by this user.*SQLITE_[A-Z_]+\)/);
      expect(line).toMatch(/chown -R punchgate:|sudo -u punchgate/);
    } finally {
      chmodSync(tmp.path('state'), 0o755);
    }
  });

  it('a full disk at start: exit 75 (restarted) with the path and the fix, and no journal left behind', async () => {
    const { config, journal } = setup();
    // A file-size limit of 0 stands in for a full disk: the new journal cannot be written.
    const r = await runPunchgate(['--config', config, 'run'], { shell: "trap '' XFSZ; ulimit -f 16;" });
    expect(r.status, r.stderr).toBe(75);
    expect(oneLine(r.stderr, journal)).toMatch(/(disk is full|I\/O error).*(free space|check the disk)/);
    // Never a half-made journal at the path: the next start (with room) makes a whole one.
    expect(existsSync(journal)).toBe(false);
    // Nor the half-made file it was built in (a full disk must not keep losing that space).
    expect(readdirSync(dirname(journal)).filter((f) => f.includes('.new-'))).toEqual([]);
  });

  it('a disk that fills while the new journal is made: no journal, or a whole one, at every size (found by an adversarial trial)', async () => {
    // Built in WAL mode, a close that could not checkpoint left the last commits beside the
    // temporary name: the incomplete file became the journal, "damaged" at every start after.
    // A small tmpfs is a disk that fills (a file size limit cannot show it: it stops the WAL
    // as soon as the file). Mounting needs root; elsewhere the test says so and checks nothing.
    if (process.getuid?.() !== 0) return;
    for (const size of ['300k', '450k', '600k']) {
      const { config, journal } = setup();
      const folder = dirname(journal);
      mkdirSync(folder, { recursive: true });
      if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', folder]).status !== 0) {
        console.warn('cannot mount a tmpfs here: the filling disk is not tried');
        return;
      }
      try {
        // It stops by itself (exit 74), or it says it is running on a whole journal: then a stop,
        // as systemd's (its close writes too). Not a fixed few seconds: under load the journal
        // may take longer to make, and a quiet box would idle through most of them.
        const d = spawnDaemon(config);
        await waitFor(() => d.child.exitCode !== null || /"msg":"punchgate running"/.test(d.output()), 30_000, size);
        if (d.child.exitCode === null) d.child.kill('SIGTERM');
        const r = { status: (await d.exited).code };
        expect(
          readdirSync(folder).filter((f) => f.includes('.new-')),
          size,
        ).toEqual([]);
        // Exit 74 either while the journal is made (then there is none) or at a later write once
        // a whole one was made (its size decides which): either way never a partial journal.
        if (r.status === 74 && !existsSync(journal)) continue;
        // Checked in a copy off the full disk (the journal and its WAL): opened where it lies, SQLite
        // needs room for its -shm file, which a disk left full (exit 75 at a later write) has not.
        const copy = `${dirname(folder)}/check-${size}.db`;
        copyFileSync(journal, copy);
        if (existsSync(`${journal}-wal`)) copyFileSync(`${journal}-wal`, `${copy}-wal`);
        const db = new Database(copy, { readonly: true });
        try {
          expect(db.pragma('integrity_check', { simple: true }), size).toBe('ok');
        } finally {
          db.close();
        }
      } finally {
        spawnSync('umount', [folder]);
      }
    }
  }, 60_000);
});

/** Makes a journal as punchgate run does at its first start, then stops it. */
function makeJournal(config: string): void {
  const c = loadConfig(config, () => []);
  Journal.open({ path: c.journal.path, site: c.site, mode: 'owner' }).close();
}

/**
 * Every way a journal can refuse, for every command that opens it: one line on stderr with the
 * journal's path and the fix, exit 74 (check: its FAIL line). As root the commands run as nobody
 * (root may write anything); otherwise the mode bits alone make the case.
 */
describe('every journal refusal, for every command', () => {
  const asRoot = process.getuid?.() === 0;
  const as = asRoot ? { uid: 65534, gid: 65534 } : undefined;
  const NOBODY = 65534;
  let tmp: ReturnType<typeof tempDir>;
  afterEach(() => {
    // Give everything back to this user so that it can be removed.
    if (tmp) {
      chmodRecursive(tmp.dir);
      tmp.cleanup();
    }
  });

  /** A config readable by the command's user, a made journal with a few punches, and a punch file to import. */
  function sandbox(): { config: string; journal: string; state: string; importFile: string } {
    tmp = tempDir('punchgate-refusals-');
    chmodSync(tmp.dir, 0o755);
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-r',
        journal: { path: 'state/journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9', connectTimeoutMs: 300, timeoutMs: 300 },
        status: { intervalMs: 1000 },
        terminals: [],
      }),
      { mode: 0o644 },
    );
    const journal = tmp.path('state/journal.db');
    mkdirSync(tmp.path('state'), { mode: 0o755 });
    const j = Journal.open({ path: journal, site: 'plant-r', mode: 'owner' });
    j.ingest(
      Array.from({ length: 400 }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(1000 + i),
        logTime: `2026-11-22 08:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
      })),
    );
    j.close();
    // Made here by the test's user (root on CI), 0600 as punchgate makes them: each case opens up
    // what it needs, so that the refusal met is the one it sets up, not a lock file nobody may read.
    for (const f of readdirSync(tmp.path('state'))) chmodSync(tmp.path(`state/${f}`), 0o644);
    const importFile = tmp.path('1_attlog.dat');
    writeFileSync(
      importFile,
      Array.from(
        { length: 3000 },
        (_, i) =>
          `${5000 + i}\t2026-11-23 ${String(Math.floor(i / 3600) + 7).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}\t1\t0\t1\t0\n`,
      ).join(''),
      { mode: 0o644 },
    );
    return { config, journal, state: tmp.path('state'), importFile };
  }

  const chown = (path: string) => {
    if (asRoot) chownSync(path, NOBODY, NOBODY);
  };

  /** Commands that write to the journal, and commands that only read it. */
  const writers = (importFile: string) => [
    ['run'],
    ['punches', 'retry'],
    ['punches', 'release'],
    ['flush', '--max-wait', '0'],
    ['import', importFile],
    ['poll'],
  ];
  const readers = [
    ['status'],
    ['status', '--json'],
    ['punches'],
    ['punches', 'export'],
    ['terminals'],
    ['terminals', 'backups'],
  ];

  async function expectRefused(config: string, journal: string, commands: string[][], problem: RegExp, fix: RegExp) {
    for (const args of commands) {
      const r = await runPunchgate(['--config', config, ...args], { as, timeoutMs: 20_000 });
      const what = `${args.join(' ')}: exit ${r.status}, stderr ${r.stderr}, stdout ${r.stdout.slice(0, 300)}`;
      // run stopped by what is mended outside and goes on by itself (a full disk, a file system
      // gone read-only): 75, which the unit restarts; every other: 74, which it does not.
      const restarted = args[0] === 'run' && /punchgate starts again by itself/.test(r.stderr);
      expect(r.status, what).toBe(restarted ? 75 : 74);
      const lines = r.stderr.trim().split('\n');
      expect(lines, what).toHaveLength(1);
      expect(lines[0], what).toContain(journal);
      expect(lines[0], what).toMatch(problem);
      expect(lines[0], what).toMatch(fix);
      expect(lines[0], what).not.toMatch(/attempt to write|SqliteError|at .*\.js:\d+/);
    }
    const check = await runPunchgate(['--config', config, 'check', '--quick'], { as });
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(new RegExp(`FAIL journal: ${journal.replace(/[.]/g, '\\.')}`));
  }

  const ownerFix = /chown -R punchgate:.*sudo -u punchgate/;

  it('a journal this user cannot read', async () => {
    const { config, journal, importFile } = sandbox();
    chmodSync(journal, asRoot ? 0o600 : 0o000);
    await expectRefused(config, journal, [...writers(importFile), ...readers], /cannot be read by this user/, ownerFix);
  }, 120_000);

  it('a journal this user may read but not write (the folder is writable)', async () => {
    const { config, journal, state, importFile } = sandbox();
    chmodSync(journal, 0o644);
    if (asRoot) chmodSync(state, 0o777);
    else chmodSync(journal, 0o444);
    await expectRefused(
      config,
      journal,
      writers(importFile),
      /cannot be written by this user \(the file is owned by uid \d+.*mode 0[46]44/,
      ownerFix,
    );
  }, 120_000);

  it('a read-only file of this very user', async () => {
    const { config, journal, state, importFile } = sandbox();
    chown(state);
    chown(journal);
    chmodSync(journal, 0o444);
    await expectRefused(
      config,
      journal,
      writers(importFile),
      /cannot be written by this user \(the file is owned by uid \d+, mode 0444/,
      /chmod -R u\+rwX/,
    );
  }, 120_000);

  it('a journal in a folder this user may not write (SQLite cannot make its -wal and -shm files)', async () => {
    const { config, journal, state, importFile } = sandbox();
    chmodSync(journal, 0o666);
    if (asRoot) chmodSync(state, 0o755);
    else chmodSync(state, 0o555);
    await expectRefused(
      config,
      journal,
      [...writers(importFile), ...readers],
      new RegExp(`cannot be written by this user: its folder ${state.replace(/[.]/g, '\\.')} is owned by uid \\d+`),
      ownerFix,
    );
  }, 120_000);

  it('a damaged journal (every page after the first overwritten), met while reading or writing', async () => {
    const { config, journal, importFile } = sandbox();
    const bytes = readFileSync(journal);
    // Keep page 1 (the header and the schema): the file opens, every table read meets the damage.
    const pageSize = bytes.readUInt16BE(16);
    bytes.fill(0x5a, pageSize);
    writeFileSync(journal, bytes);
    chmodSync(journal, 0o666);
    chmodSync(dirname(journal), 0o777);
    await expectRefused(
      config,
      journal,
      [...writers(importFile).filter(([c]) => c !== 'poll'), ['status'], ['punches'], ['punches', 'export']],
      /is damaged \(SQLITE_CORRUPT|SQLITE_NOTADB/,
      /sqlite3 -nofollow \S+ \.dump/,
    );
  }, 120_000);

  it('a full disk met while importing: exit 74, every punch before it kept', async () => {
    const { config, journal, importFile } = sandbox();
    chmodSync(journal, 0o666);
    chmodSync(dirname(journal), 0o777);
    // The file size limit stands in for a full disk: the journal and its WAL may not grow.
    const blocks = Math.ceil(statSync(journal).size / 512) + 8;
    const r = await runPunchgate(['--config', config, 'import', importFile], {
      as,
      shell: `trap '' XFSZ; ulimit -f ${blocks};`,
    });
    expect(r.status, r.stderr).toBe(74);
    // What stays and how to go on (test/cli/import-stopped.test.ts), then the journal's own line.
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/stopped after line \d+: \d+ new, 0 duplicates journalled before it \(kept\)/);
    expect(lines[1]).toContain(journal);
    // (A file size limit reads as an I/O error; a real full disk as "the disk is full".)
    expect(lines[1]).toMatch(/(disk is full|I\/O error).*(free space|check the disk)/);
    // What was journalled before stays; the journal is whole.
    const db = new Database(journal, { readonly: true });
    expect((db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n).toBeGreaterThanOrEqual(400);
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    db.close();
  }, 60_000);

  it("a link planted at the journal's -wal or -shm file: the link is named, never followed (found by an adversarial trial)", async () => {
    // The service user may write the journal's folder: a link there aims a command run as root
    // (this test's user on CI) at another file. SQLite refuses to follow it; the words named
    // this user's permissions instead of the link.
    for (const side of ['-wal', '-shm']) {
      const { config, journal, state, importFile } = sandbox();
      chown(state);
      chown(journal);
      const victim = tmp.path(`victim${side}`);
      symlinkSync(victim, `${journal}${side}`);
      for (const args of [...readers, ...writers(importFile)]) {
        const r = await runPunchgate(['--config', config, ...args], { timeoutMs: 20_000 });
        const what = `${args.join(' ')}: exit ${r.status}, stderr ${r.stderr}`;
        expect(r.status, what).toBe(74);
        expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
        expect(r.stderr, what).toContain(
          `${journal}${side} is a symbolic link (to ${victim}, made by uid ${process.getuid?.() ?? 0})`,
        );
        expect(r.stderr, what).toContain(`rm ${journal}${side}`);
        expect(r.stderr, what).not.toMatch(/chown|sudo -u/);
      }
      const check = await runPunchgate(['--config', config, 'check', '--quick']);
      expect(check.stdout).toContain(`FAIL journal: ${journal} cannot be opened: ${journal}${side} is a symbolic link`);
      expect(existsSync(victim)).toBe(false);
      chmodRecursive(tmp.dir);
      tmp.cleanup();
    }
  }, 240_000);

  it("another program's SQLite file at journal.path", async () => {
    const { config, journal, importFile } = sandbox();
    rmSync(journal);
    const other = new Database(journal);
    other.exec('CREATE TABLE cars (plate TEXT)');
    other.close();
    chmodSync(journal, 0o666);
    chmodSync(dirname(journal), 0o777);
    await expectRefused(
      config,
      journal,
      [...writers(importFile), ...readers],
      /is not a punchgate journal .*it has cars/,
      /move this file away/,
    );
  }, 120_000);
});

function chmodRecursive(dir: string): void {
  try {
    chmodSync(dir, 0o755);
    for (const f of readdirSync(dir)) {
      const p = `${dir}/${f}`;
      if (statSync(p).isDirectory()) chmodRecursive(p);
      else chmodSync(p, 0o644);
    }
  } catch {
    // best effort: cleanup removes what it can
  }
}
