import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS } from '../../src/journal/migrations.js';
import { schemaProblems } from '../../src/journal/schema-check.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { cliSandbox } from '../helpers/cli.js';

const TOKEN = 'schema-token-71c2';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sandbox() {
  const hrms: HrmsSim = await startHrmsSim({ tokens: [TOKEN] });
  cleanups.push(() => hrms.stop());
  const s = cliSandbox({ hrms: { baseUrl: hrms.url, tokenFile: 'token' }, delivery: { batchSize: 50 } });
  cleanups.push(s.tmp.cleanup);
  writeFileSync(s.tmp.path('token'), TOKEN);
  const journal = s.tmp.path('journal.db');
  let next = 0;
  /** `n` new punches journalled by a `punchgate import` child. */
  const importPunches = async (n: number) => {
    const lines = ['biometriccode,logDate'];
    for (let i = 0; i < n; i++, next++)
      lines.push(
        `${5000 + next},2026-11-18 ${String(6 + Math.floor(next / 60)).padStart(2, '0')}:${String(next % 60).padStart(2, '0')}:00`,
      );
    writeFileSync(s.tmp.path('p.csv'), lines.join('\n') + '\n');
    return s.cli('import', s.tmp.path('p.csv'));
  };
  const edit = (path: string, change: string | ((path: string) => void)) =>
    typeof change === 'string' ? editDb(path, change) : change(path);
  return { ...s, hrms, journal, importPunches, edit };
}

/**
 * Bytes of a SQLite file replaced where they stand (same length), as a program that writes the
 * schema table itself (sqlite3's `PRAGMA writable_schema`, which better-sqlite3's defensive mode refuses)
 * leaves a file: a name SQLite reserves, a literal of another case.
 */
function patchBytes(path: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const text = readFileSync(path).toString('latin1');
  expect(text, `${from} in ${path}`).toContain(from);
  writeFileSync(path, Buffer.from(text.split(from).join(to), 'latin1'));
}

/** What another program might leave in a journal: each one a change to how punches are kept. */
const FOREIGN: [string, string | ((path: string) => void), RegExp][] = [
  [
    'a trigger that drops every new punch',
    `CREATE TRIGGER keep_out BEFORE INSERT ON punches BEGIN SELECT RAISE(IGNORE); END`,
    /a trigger keep_out that punchgate does not make/,
  ],
  [
    'a trigger on another table',
    `CREATE TRIGGER t2 AFTER UPDATE ON delivery_state BEGIN UPDATE punches SET state = 'delivered'; END`,
    /a trigger t2/,
  ],
  ['a view', `CREATE VIEW v AS SELECT * FROM punches`, /a view v that punchgate does not make/],
  [
    'a unique index of its own',
    `CREATE UNIQUE INDEX one_per_code ON punches (biometric_code)`,
    /an? index one_per_code that punchgate does not make/,
  ],
  [
    'a column of its own',
    `ALTER TABLE punches ADD COLUMN note TEXT DEFAULT 'x'`,
    /the table punches is not as punchgate makes it/,
  ],
  ['a table of its own', `CREATE TABLE extra (x)`, /a table extra that punchgate does not make/],
  ['an index dropped', `DROP INDEX punches_queue`, /no index punches_queue/],
  [
    'a unique index with another WHERE',
    `DROP INDEX punches_by_terminal; CREATE UNIQUE INDEX punches_by_terminal ON punches (terminal, log_time, biometric_code)`,
    /the index punches_by_terminal is not as punchgate makes it/,
  ],
  [
    'a trigger under the name of SQLite’s own statistics table',
    (path) => {
      editDb(path, `CREATE TRIGGER xqlite_stat1 BEFORE INSERT ON punches BEGIN SELECT RAISE(IGNORE); END`);
      patchBytes(path, 'xqlite_stat1', 'sqlite_stat1');
    },
    /a trigger sqlite_stat1 that punchgate does not make/,
  ],
  [
    'a view under the name of SQLite’s own statistics table',
    (path) => {
      editDb(path, `CREATE VIEW xqlite_stat4 AS SELECT * FROM punches`);
      patchBytes(path, 'xqlite_stat4', 'sqlite_stat4');
    },
    /a view sqlite_stat4 that punchgate does not make/,
  ],
  [
    'a default of another case',
    (path) => patchBytes(path, "DEFAULT 'unknown'", "DEFAULT 'UNKNOWN'"),
    /the table delivery_state is not as punchgate makes it/,
  ],
  [
    'a CHECK with a state of another case',
    (path) => patchBytes(path, "'quarantined'", "'QUARANTINED'"),
    // The table's CHECK, and the partial indexes WHERE state IN (... 'quarantined').
    /the (table|index) punches\w* is not as punchgate makes it/,
  ],
  ['another program’s application_id', `PRAGMA application_id = 1234`, /the application_id 0x4d2/],
];

function editDb(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe('restore restores punchgate’s journal, nothing else', () => {
  // A restore child per variant (13 of them, about 2 s each on a loaded machine): more than the default 30 s.
  it('a backup with another program’s objects is refused (exit 74, the path, what and the fix); the journal is untouched and keeps taking and delivering punches', async () => {
    const s = await sandbox();
    expect((await s.importPunches(5)).status).toBe(0);
    expect((await s.cli('backup', s.tmp.path('good.db'))).status).toBe(0);
    const before = readFileSync(s.journal);
    for (const [what, sql, said] of FOREIGN) {
      const bad = s.tmp.path(`bad-${FOREIGN.findIndex((f) => f[0] === what)}.db`);
      copyFileSync(s.tmp.path('good.db'), bad);
      s.edit(bad, sql);
      const r = await s.cli('restore', '--force', bad);
      expect(r.status, `${what}: ${r.stdout}${r.stderr}`).toBe(74);
      expect(r.stderr, what).toContain(`${bad} cannot be restored: it holds a schema that is not punchgate's`);
      expect(r.stderr, what).toMatch(said);
      expect(r.stderr, what).toContain('nothing was changed');
      expect(r.stderr, what).toContain(`sqlite3 ${bad} '.schema'`);
      expect(readFileSync(s.journal).equals(before), what).toBe(true);
    }
    // The good backup restores, and what comes after is journalled and delivered: 5 + 7 at the HRMS.
    expect((await s.cli('restore', '--force', s.tmp.path('good.db'))).status).toBe(0);
    expect((await s.importPunches(7)).stdout).toContain('7 new, 0 duplicates');
    const flush = await s.cli('flush', '--max-wait', '20');
    expect(flush.status, flush.stdout + flush.stderr).toBe(0);
    expect(s.hrms.received()).toHaveLength(12);
  }, 120_000);

  it('check, status and run say the same of a live journal with another program’s objects, and nothing is journalled into it', async () => {
    const s = await sandbox();
    expect((await s.importPunches(3)).status).toBe(0);
    s.edit(s.journal, FOREIGN[0]![1]);
    const check = await s.cli('check', '--quick');
    expect(check.status).not.toBe(0);
    expect(check.stdout).toMatch(/FAIL.*journal.*holds a schema that is not punchgate's: a trigger keep_out/);
    const status = await s.cli('status');
    expect(status.status).toBe(74);
    expect(status.stderr).toContain(`the journal ${s.journal} holds a schema that is not punchgate's`);
    const imp = await s.importPunches(4);
    expect(imp.status).toBe(74);
    const flush = await s.cli('flush', '--max-wait', '5');
    expect(flush.status).toBe(74);
    expect(s.hrms.received()).toHaveLength(0);
    // Removed as the fix says: everything works again, and nothing was lost.
    s.edit(s.journal, 'DROP TRIGGER keep_out');
    expect((await s.cli('check', '--quick')).stdout).not.toMatch(/schema that is not/);
    expect((await s.importPunches(4)).stdout).toContain('4 new, 0 duplicates');
    expect((await s.cli('flush', '--max-wait', '20')).status).toBe(0);
    expect(s.hrms.received()).toHaveLength(7);
  }, 120_000);

  it('compares against a journal of the same version built from MIGRATIONS: every older version of a fresh journal passes, a migrated one equals a fresh one', () => {
    for (let v = 1; v <= MIGRATIONS.length; v++) {
      const db = new Database(':memory:');
      for (const m of MIGRATIONS.slice(0, v)) applyMigration(db, m);
      db.pragma(`user_version = ${v}`);
      expect(schemaProblems(db), `version ${v}`).toEqual([]);
      db.close();
    }
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    const db = new Database(s.tmp.path('old.db'));
    applyMigration(db, MIGRATIONS[0]!);
    db.pragma('user_version = 1');
    db.close();
    // punchgate run upgrades it: the upgraded journal is exactly a fresh one.
    const j = Journal.open({ path: s.tmp.path('old.db'), site: 'plant-a', mode: 'owner' });
    expect(schemaProblems(j.db)).toEqual([]);
    j.close();
  });
});

describe('backup --keep removes only backups punchgate made, never the one just written', () => {
  it('a first backup into a folder not made yet, without --keep (docs/install.md): the folder is made, and the nightly --keep 14 works after it', async () => {
    const s = await sandbox();
    await s.importPunches(3);
    const dir = s.tmp.path('lib/backups');
    const first = await s.cli('backup', dir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`made the folder ${dir} (mode 0700)`);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^punchgate-plant-a-\d{8}T\d{6}Z\.db$/)]);
    const nightly = await s.cli('backup', dir, '--keep', '14');
    expect(nightly.status, nightly.stderr).toBe(0);
    expect(readdirSync(dir)).toHaveLength(2);
    // A name with an extension is a file, as before; a file in the folder's place is named, not pruned.
    expect((await s.cli('backup', s.tmp.path('lib/copy.bak'))).status).toBe(0);
    expect(statSync(s.tmp.path('lib/copy.bak')).isFile()).toBe(true);
    const onFile = await s.cli('backup', s.tmp.path('lib/copy.bak'), '--keep', '14');
    expect(onFile.status).toBe(78);
    expect(onFile.stderr).toContain('is not a folder');
    expect(onFile.stderr).toContain('move that file away');
  });

  it('a folder that does not exist yet is made (0700); the clock behind, look-alike files, folders and links, other sites: only older real backups go, by what they hold', async () => {
    const s = await sandbox();
    const dir = s.tmp.path('state/backups');
    // The documented command on a fresh box: the folder is made.
    const first = await s.cli('backup', dir, '--keep', '3');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`made the folder ${dir} (mode 0700)`);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toHaveLength(1);
    // A real backup dated in the future (made while the clock was ahead): by name it is the newest.
    renameSync(`${dir}/${readdirSync(dir)[0]!}`, `${dir}/punchgate-plant-a-20991231T235959Z.db`);
    await s.importPunches(2);
    expect((await s.cli('backup', dir)).status).toBe(0);
    const middle = readdirSync(dir).find((f) => !f.startsWith('punchgate-plant-a-2099'))!;
    // Look-alikes: a text file, a folder, a link to a real backup, a copy of the live journal
    // (with its log elsewhere), a backup of another site.
    const lookAlikes = [
      'punchgate-plant-a-20000101T000000Z.db',
      'punchgate-plant-a-20000102T000000Z.db',
      'punchgate-plant-a-20000103T000000Z.db',
      'punchgate-plant-a-20000104T000000Z.db',
      'punchgate-plant-b-20000101T000000Z.db',
      // A real backup of another site, under this site's name.
      'punchgate-plant-a-20000105T000000Z.db',
      // A marked backup with a trigger added.
      'punchgate-plant-a-20000106T000000Z.db',
    ];
    writeFileSync(`${dir}/${lookAlikes[0]}`, 'not a backup\n');
    mkdirSync(`${dir}/${lookAlikes[1]}`);
    symlinkSync(`${dir}/${middle}`, `${dir}/${lookAlikes[2]}`);
    const j = new Database(s.journal);
    j.pragma('wal_checkpoint(TRUNCATE)');
    j.close();
    copyFileSync(s.journal, `${dir}/${lookAlikes[3]}`);
    copyFileSync(`${dir}/${middle}`, `${dir}/${lookAlikes[4]}`);
    copyFileSync(`${dir}/${middle}`, `${dir}/${lookAlikes[5]}`);
    s.edit(`${dir}/${lookAlikes[5]}`, `UPDATE punches SET site = 'plant-b'`);
    // A backup's mark on a file with another program's trigger in it: not one punchgate made.
    copyFileSync(`${dir}/${middle}`, `${dir}/${lookAlikes[6]}`);
    s.edit(`${dir}/${lookAlikes[6]}`, FOREIGN[0]![1]);
    await s.importPunches(2);
    // The box clock is behind: this backup's name sorts before the others'.
    const r = await s.cli('backup', dir, '--keep', '2');
    expect(r.status, r.stderr).toBe(0);
    const written = /written to (\S+):/.exec(r.stdout)![1]!;
    expect(existsSync(written)).toBe(true);
    // Kept: the one just written and the newest by content (middle); gone: the 2099 one (oldest content).
    expect(existsSync(`${dir}/${middle}`)).toBe(true);
    expect(existsSync(`${dir}/punchgate-plant-a-20991231T235959Z.db`)).toBe(false);
    for (const f of lookAlikes) expect(existsSync(`${dir}/${f}`), f).toBe(true);
    expect(r.stdout).toContain('removed 1 older backup of plant-a');
    // Named with the count of those not shown (it said "a, b, c, ...").
    expect(r.stdout).toMatch(
      /left alone 6 files named like a backup that punchgate did not make: \S+, \S+, \S+ and 3 more\n/,
    );
    // --keep 1: only the one just written of the real ones, whatever the names say.
    const one = await s.cli('backup', dir, '--keep', '1');
    expect(one.status).toBe(0);
    const now = /written to (\S+):/.exec(one.stdout)![1]!;
    const real = readdirSync(dir).filter((f) => /^punchgate-plant-a-/.test(f) && !lookAlikes.includes(f));
    expect(real.map((f) => `${dir}/${f}`)).toEqual([now]);
    // A backup restores to a journal that is not marked as a backup.
    expect((await s.cli('restore', '--force', now)).status).toBe(0);
    const db = new Database(s.journal, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(0);
    db.close();
  }, 120_000);
});
