import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

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
  });

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

  it('a damaged journal at start: exit 74 with the path and how to recover it', async () => {
    const { config, journal } = setup();
    mkdirSync(tmp.path('state'));
    writeFileSync(journal, Buffer.alloc(8192, 0x5a));
    for (const args of [['run'], ['status']]) {
      const r = await runPunchgate(['--config', config, ...args]);
      expect(r.status, args.join(' ')).toBe(74);
      expect(oneLine(r.stderr, journal)).toMatch(/SQLITE_NOTADB.*\.recover/);
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
      expect(line).toMatch(/(read-only|cannot be opened or written by this user) \(SQLITE_[A-Z_]+\)/);
      expect(line).toMatch(/chown -R punchgate:|sudo -u punchgate/);
    } finally {
      chmodSync(tmp.path('state'), 0o755);
    }
  });

  it('a full disk at start: exit 74 with the path and the fix, and no journal left behind', async () => {
    const { config, journal } = setup();
    // A file-size limit of 0 stands in for a full disk: the new journal cannot be written.
    const r = await runPunchgate(['--config', config, 'run'], { shell: "trap '' XFSZ; ulimit -f 16;" });
    expect(r.status, r.stderr).toBe(74);
    expect(oneLine(r.stderr, journal)).toMatch(/(disk is full|I\/O error).*(free space|check the disk)/);
    // Never a half-made journal at the path: the next start (with room) makes a whole one.
    expect(existsSync(journal)).toBe(false);
    // Nor the half-made file it was built in (a full disk must not keep losing that space).
    expect(readdirSync(dirname(journal)).filter((f) => f.includes('.new-'))).toEqual([]);
  });
});

/** Makes a journal as punchgate run does at its first start, then stops it. */
function makeJournal(config: string): void {
  const c = loadConfig(config, () => []);
  Journal.open({ path: c.journal.path, site: c.site, mode: 'owner' }).close();
}
