import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { backupJournal } from '../../src/journal/backup.js';
import { sealBackup } from '../../src/journal/backup-seal.js';
import { ClaimHolder } from '../../src/journal/claim-holder.js';
import { Journal } from '../../src/journal/index.js';
import { SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sandbox(extra: Record<string, unknown> = {}) {
  const s = cliSandbox(extra);
  cleanups.push(s.tmp.cleanup);
  const journal = s.tmp.path('journal.db');
  const punch = (i: number, state: 'pending' | 'delivered' = 'pending') => {
    const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
    j.ingest([
      {
        terminal: 'gate-1',
        device: 'SN-1',
        biometricCode: String(1000 + i),
        logTime: `2026-11-20 08:00:${String(i).padStart(2, '0')}`,
      },
    ]);
    if (state === 'delivered') j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    j.close();
  };
  return { ...s, journal, punch };
}

/** A child that ingests batches of 50 numbered punches into `path` as fast as it can (it owns the journal, as punchgate run). */
function writer(path: string): { child: ChildProcess; acked: () => number } {
  const child = spawn(process.execPath, ['test/fixtures/ingest-loop.mjs', path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let acked = 0;
  child.stdout!.on('data', (d: Buffer) => {
    const last = d.toString().trim().split('\n').pop();
    if (last) acked = Math.max(acked, Number(last));
  });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  return { child, acked: () => acked };
}

const rows = (path: string, sql: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
};

/** A backup `b.db` of a journal with one delivered punch, and a new box whose journal goes in `state/`. */
async function backupAndNewBox() {
  const s = sandbox();
  s.punch(1, 'delivered');
  expect((await s.cli('backup', s.tmp.path('b.db'))).status).toBe(0);
  const box = cliSandbox({ journal: { path: 'state/journal.db' } });
  cleanups.push(box.tmp.cleanup);
  mkdirSync(box.tmp.path('state'));
  return { s, box };
}

describe('punchgate backup', () => {
  it('copies the journal while another process writes it: one consistent file, mode 0600, checked, nothing else beside it', async () => {
    const s = sandbox();
    const w = writer(s.journal);
    await waitFor(() => w.acked() >= 2000, 20_000, 'the writer under way');
    const r = await s.cli('backup', s.tmp.path('b.db'));
    const after = w.acked();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^backup of .*journal\.db written to .*b\.db: [\d,]+ punches .*; [\d.]+ MB in [\d.]+ s\n$/,
    );
    const file = s.tmp.path('b.db');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(s.tmp.dir).filter((f) => f.startsWith('b.db'))).toEqual(['b.db']);
    expect(rows(file, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    // A snapshot: whole transactions of the writer (batches of 50, numbered in order), none half.
    const [{ n, codes }] = rows(
      file,
      `SELECT count(*) AS n, count(DISTINCT biometric_code || log_time) AS codes FROM punches`,
    ) as [{ n: number; codes: number }];
    expect(n).toBe(codes);
    expect(n % 50).toBe(0);
    expect(n).toBeGreaterThanOrEqual(2000);
    expect(n).toBeLessThanOrEqual(after + 50);
    // The writer was never kept from writing for long: it went on meanwhile.
    await waitFor(() => w.acked() > after, 10_000, 'the writer going on after the backup');
    // A single file: no write-ahead log needed (the header says rollback journal, not WAL).
    expect(readFileSync(file).subarray(18, 20)).toEqual(Buffer.from([1, 1]));
  });

  it('says what is wrong, with exit 74 (cannot write, no journal) or 78 (--keep without a folder)', async () => {
    const s = sandbox();
    const missing = await s.cli('backup', s.tmp.path('nowhere/b.db'));
    expect(missing.status).toBe(74);
    expect(missing.stderr).toContain(
      `cannot write the backup ${s.tmp.path('nowhere/b.db')}: the folder ${s.tmp.path('nowhere')} does not exist`,
    );
    expect(readdirSync(s.tmp.dir).some((f) => f.includes('partial'))).toBe(false);
    const keep = await s.cli('backup', s.tmp.path('b.db'), '--keep', '3');
    expect(keep.status).toBe(78);
    expect(keep.stderr).toContain('--keep');
    const none = cliSandbox({ journal: { path: 'other.db' } });
    cleanups.push(none.tmp.cleanup);
    const r = await none.cli('backup', none.tmp.path('b.db'));
    expect(r.status).toBe(74);
    expect(r.stderr).toContain('other.db does not exist');
    // An empty journal file: the words every other command uses, not "a SQLite file without tables".
    writeFileSync(none.tmp.path('other.db'), '');
    const empty = await none.cli('backup', none.tmp.path('b.db'));
    const status = await none.cli('status');
    expect(empty.status).toBe(74);
    expect(empty.stderr).toContain('is empty (0 bytes)');
    expect(empty.stderr.trim()).toBe(status.stderr.trim());
  });
});

describe('punchgate backup: where it never writes', () => {
  it('never over the journal or a file of its own beside it, by any spelling (74, the journal untouched); a file on the way is named (found by an adversarial trial)', async () => {
    const s = sandbox();
    s.punch(1);
    const before = statSync(s.journal).ino;
    const r = await s.cli('backup', s.journal);
    expect(r.status).toBe(74);
    expect(r.stderr).toContain(`cannot write the backup ${s.journal}: it is the journal itself`);
    mkdirSync(s.tmp.path('sub'));
    for (const [target, words] of [
      [`${s.tmp.dir}/./sub/../journal.db`, 'it is the journal itself'],
      [`${s.journal}-wal`, "it is one of the journal's own files"],
      [`${s.journal}.lock`, "it is one of the journal's own files"],
      [`${s.journal}.before-restore-20261130T000000Z`, "it is one of the journal's own files"],
    ] as const)
      await expect(backupJournal(s.journal, target), target).rejects.toThrow(
        `cannot write the backup ${target}: ${words}`,
      );
    expect(statSync(s.journal).ino).toBe(before);
    expect(rows(s.journal, 'SELECT count(*) AS n FROM punches')).toEqual([{ n: 1 }]);
    expect(readdirSync(s.tmp.dir).filter((f) => f.includes('partial') || f.includes('before-restore'))).toEqual([]);
    // A folder of backups named after the journal is not one of its files.
    mkdirSync(`${s.journal}.backups`);
    await expect(backupJournal(s.journal, `${s.journal}.backups/b.db`)).resolves.toMatchObject({ punches: 1 });
    // A file where a folder is meant: named with the fix, exit 74 (was a bare ENOTDIR, exit 1).
    writeFileSync(s.tmp.path('afile'), 'notes');
    await expect(backupJournal(s.journal, s.tmp.path('afile/b.db'))).rejects.toThrow(
      `${s.tmp.path('afile')} is a file, not a folder (ENOTDIR): name a folder`,
    );
    const folder = await s.cli('backup', s.tmp.path('afile/'));
    expect(folder.status).toBe(74);
    expect(folder.stderr).toContain(`${s.tmp.path('afile')} is a file, not a folder (ENOTDIR): name a folder`);
    expect(readFileSync(s.tmp.path('afile'), 'utf8')).toBe('notes');
  });
});

describe('punchgate backup: a failing backup disk', () => {
  it("an I/O error writing the copy (here a file size limit) is said as the backup disk's, not the journal's (74, nothing left)", async () => {
    const s = sandbox();
    s.punch(1);
    const r = await runPunchgate(['--config', s.config, 'backup', s.tmp.path('b.db')], {
      shell: "trap '' XFSZ; ulimit -f 100;",
    });
    expect(r.status).toBe(74);
    expect(r.stderr).toContain(
      `cannot write the backup ${s.tmp.path('b.db')}: the disk of ${s.tmp.dir} reports an I/O error`,
    );
    expect(r.stderr).not.toContain('punchgate: the journal');
    expect(readdirSync(s.tmp.dir).filter((f) => f.startsWith('b.db'))).toEqual([]);
  });
});

describe('backup and restore count what every sink still owes', () => {
  it('a punch the default sink has delivered but another sink has not is "not delivered to every sink yet"', async () => {
    const s = sandbox();
    const j = Journal.open({ path: s.journal, site: 'plant-a', mode: 'owner' });
    j.useSinks({ defaultSink: 'hrms', others: ['odoo'] });
    j.ingest(
      [0, 1, 2, 3].map((i) => ({
        terminal: 'gate-1',
        biometricCode: String(1000 + i),
        logTime: `2026-11-20 08:00:0${i}`,
      })),
    );
    j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // odoo: one delivered, one refused for good, two still owed (one taken in, one not yet).
    const odoo = j.sinkQueue('odoo');
    const [a, b, c] = odoo.claim(3);
    odoo.settle([{ id: a!.id, kind: 'delivered' }]);
    odoo.release([c!.id]);
    j.close();
    const dead = new Database(s.journal);
    dead.prepare(`UPDATE sink_deliveries SET state = 'dead', claimed_by = NULL WHERE punch_id = ?`).run(b!.id);
    dead.close();
    const r = await s.cli('backup', s.tmp.path('b.db'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(': 4 punches (3 not delivered to every sink yet, 1 of them refused for good), newest');
    const refused = await s.cli('restore', s.tmp.path('b.db'));
    expect(refused.status).toBe(75);
    expect(refused.stderr).toContain('holds 3 punches not delivered to every sink (2 waiting, 1 refused for good)');
  });
});

describe('punchgate restore', () => {
  it('puts a backup in place: claims of the old box back in the queue, stale claim files gone, the old journal kept aside', async () => {
    const s = sandbox();
    for (let i = 0; i < 5; i++) s.punch(i, i < 2 ? 'delivered' : 'pending');
    // A process claims 3 punches and dies (its claim file stays, its lock is gone): as in a backup taken mid-request.
    const j = Journal.open({ path: s.journal, site: 'plant-a', mode: 'shared' });
    expect(j.claim(3)).toHaveLength(3);
    (j as unknown as { holder: ClaimHolder }).holder.abandon();
    j.db.close();
    expect(ClaimHolder.list(s.journal)).toHaveLength(1);
    expect((await s.cli('backup', s.tmp.path('b.db'))).status).toBe(0);

    // The box's journal now holds only delivered punches (it may be replaced without --force).
    const fresh = cliSandbox();
    cleanups.push(fresh.tmp.cleanup);
    const target = fresh.tmp.path('journal.db');
    const r = await fresh.cli('restore', s.tmp.path('b.db'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      `restored ${s.tmp.path('b.db')} into ${target}: 5 punches (3 not delivered yet), newest 2026-11-20 08:00:04; 3 claimed for delivery by the old box's punchgate are back in the queue`,
    );
    expect(r.stdout).toMatch(
      /the journal it replaced is kept as .*journal\.db\.before-restore-\d{8}T\d{6}Z, with 0 punches: remove it/,
    );
    const restored = Journal.open({ path: target, site: 'plant-a', mode: 'readonly' });
    expect(restored.counts()).toMatchObject({ delivered: 2, pending: 3, inflight: 0 });
    restored.close();
    expect(readdirSync(fresh.tmp.dir).filter((f) => /\.restore-\d+|claim-|-wal$/.test(f))).toEqual([]);
    // punchgate run opens it as its own.
    Journal.open({ path: target, site: 'plant-a', mode: 'owner' }).close();
    // A journal was there: this box's service is set up, it only needs starting.
    expect(r.stdout).toContain('next: start punchgate (sudo systemctl start punchgate), then punchgate status');

    // A new box (no journal yet): the service and its nightly backup are switched on. Found by a
    // site admin's trial: "start" left a replacing box with neither enabled, and no backup ever.
    const newBox = cliSandbox();
    cleanups.push(newBox.tmp.cleanup);
    for (const f of readdirSync(newBox.tmp.dir).filter((x) => x.startsWith('journal.db')))
      rmSync(newBox.tmp.path(f), { force: true });
    const n = await newBox.cli('restore', s.tmp.path('b.db'));
    expect(n.status, n.stderr).toBe(0);
    expect(n.stdout).toContain(
      'next: start punchgate and its nightly backup (sudo systemctl enable --now punchgate punchgate-backup.timer), then punchgate status',
    );
  });

  it('refuses while punchgate run holds the journal (75), and a journal with undelivered punches unless --force (75); nothing changes', async () => {
    const s = sandbox();
    s.punch(1);
    expect((await s.cli('backup', s.tmp.path('b.db'))).status).toBe(0);
    s.punch(2);
    const before = readFileSync(s.journal);
    const refused = await s.cli('restore', s.tmp.path('b.db'));
    expect(refused.status).toBe(75);
    expect(refused.stderr).toContain('holds 2 punches not delivered (2 waiting, 0 refused for good)');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(s.journal).equals(before)).toBe(true);

    const w = writer(s.journal);
    await waitFor(() => w.acked() > 0, 20_000, 'the writer owning the journal');
    const running = await s.cli('restore', '--force', s.tmp.path('b.db'));
    expect(running.status).toBe(75);
    expect(running.stderr).toContain('punchgate run is using the journal');
    w.child.kill('SIGKILL');
    await new Promise((r) => w.child.once('exit', r));

    const forced = await s.cli('restore', '--force', s.tmp.path('b.db'));
    expect(forced.status, forced.stderr).toBe(0);
    const kept = readdirSync(s.tmp.dir).find((f) => f.startsWith('journal.db.before-restore-'))!;
    // The replaced journal is kept whole, its write-ahead log folded in: the writer's punches are all there.
    expect(existsSync(s.tmp.path(`${kept}-wal`))).toBe(false);
    expect(rows(s.tmp.path(kept), 'SELECT count(*) AS n FROM punches')[0]!.n).toBeGreaterThanOrEqual(2 + w.acked());
    expect(rows(s.journal, 'SELECT count(*) AS n FROM punches')).toEqual([{ n: 1 }]);
  });

  it('a damaged journal: without --force, 74 and the way to save its punches, never "start punchgate and wait" (found by a resource trial)', async () => {
    const s = sandbox();
    for (let i = 0; i < 60; i++) s.punch(i);
    expect((await s.cli('backup', s.tmp.path('b.db'))).status).toBe(0);
    // Its pages past the first overwritten with zeros (a failing disk, a bad copy), punchgate stopped.
    const db = new Database(s.journal);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const size = statSync(s.journal).size;
    const fd = openSync(s.journal, 'r+');
    writeSync(fd, Buffer.alloc(size - 4096), 0, size - 4096, 4096);
    closeSync(fd);
    const before = readFileSync(s.journal);
    const refused = await s.cli('restore', s.tmp.path('b.db'));
    expect(refused.status, refused.stderr).toBe(74);
    expect(refused.stderr).toContain(`the journal ${s.journal} is damaged`);
    expect(refused.stderr).toMatch(/sqlite3 -nofollow \S+journal\.db \.dump/);
    expect(refused.stderr).toContain('--force');
    expect(refused.stderr).not.toContain('start punchgate and wait');
    expect(readFileSync(s.journal).equals(before)).toBe(true);
    expect((await s.cli('restore', '--force', s.tmp.path('b.db'))).status).toBe(0);
  });

  it('checks the backup before it touches the journal: damaged, not a journal, newer schema, in use, another site, missing (65/66)', async () => {
    const s = sandbox();
    for (let i = 0; i < 40; i++) s.punch(i, 'delivered');
    expect((await s.cli('backup', s.tmp.path('good.db'))).status).toBe(0);
    const good = readFileSync(s.tmp.path('good.db'));
    const before = readFileSync(s.journal);
    const variant = (name: string, bytes: Buffer | string, change?: (db: Database) => void) => {
      const path = s.tmp.path(name);
      writeFileSync(path, bytes);
      if (change) {
        const db = new Database(path);
        change(db);
        db.close();
      }
      return path;
    };
    const damaged = Buffer.from(good);
    // Scramble the punches table's root page.
    const root = rows(s.tmp.path('good.db'), `SELECT rootpage AS p FROM sqlite_master WHERE name = 'punches'`)[0]!
      .p as number;
    damaged.fill(0x5a, 4096 * (root - 1) + 8, 4096 * root);
    const cases: [string, string, number, string][] = [
      ['damaged', variant('damaged.db', damaged), 65, 'cannot be restored: it is damaged'],
      ['text', variant('text.db', 'site,code\nplant-a,1042\n'), 65, 'not a readable SQLite file'],
      [
        'foreign',
        variant('foreign.db', '', (db) => db.exec('CREATE TABLE t (x)')),
        65,
        'it is not a punchgate journal',
      ],
      [
        'newer',
        variant('newer.db', good, (db) => db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)),
        65,
        `written by a newer punchgate (schema ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION})`,
      ],
      [
        'other site',
        variant('plant-b.db', good, (db) => {
          db.exec(`UPDATE punches SET site = 'plant-b'`);
          // Another box's backup is sealed as it was made (backup-seal.ts).
          sealBackup(db);
        }),
        65,
        'its punches are of site plant-b',
      ],
      ['missing', s.tmp.path('missing.db'), 66, 'cannot read the backup'],
      ['the journal', s.journal, 65, 'is the journal itself'],
    ];
    writeFileSync(s.tmp.path('inuse.db'), good);
    writeFileSync(s.tmp.path('inuse.db-wal'), '');
    cases.push(['in use', s.tmp.path('inuse.db'), 65, 'has a write-ahead log beside it']);
    for (const [what, path, code, message] of cases) {
      const r = await s.cli('restore', path);
      expect(r.status, `${what}: ${r.stderr}`).toBe(code);
      expect(r.stderr, what).toContain(message);
      expect(readFileSync(s.journal).equals(before), what).toBe(true);
    }
    expect(readdirSync(s.tmp.dir).filter((f) => /before-restore|\.restore-\d+/.test(f))).toEqual([]);
    // The same other-site backup with --force.
    expect((await s.cli('restore', '--force', s.tmp.path('plant-b.db'))).status).toBe(0);
  }, 120_000);

  it('run as root, the restored journal and its lock belong to the owner of the journal folder', async () => {
    if (process.getuid?.() !== 0) return; // only root can give files away
    const { s, box } = await backupAndNewBox();
    giveStateTo(box, 4321);
    const r = await box.cli('restore', s.tmp.path('b.db'));
    expect(r.status, r.stderr).toBe(0);
    for (const f of ['journal.db', 'journal.db.lock']) expect(statSync(box.tmp.path(`state/${f}`)).uid, f).toBe(4321);
  });

  it('run as root, never follows a link the service user planted at the lock: nothing made or given away where it points (74)', async () => {
    // Found by an adversarial trial: SQLite opened the lock through the link (creating its target)
    // and the restore handed the target to the folder's owner: with /etc/ld.so.preload, root.
    const { s, box } = await backupAndNewBox();
    mkdirSync(box.tmp.path('rootonly'));
    writeFileSync(box.tmp.path('rootonly/empty'), '');
    for (const target of ['rootonly/made-here', 'rootonly/empty']) {
      rmSync(box.tmp.path('state/journal.db.lock'), { force: true });
      symlinkSync(box.tmp.path(target), box.tmp.path('state/journal.db.lock'));
      if (process.getuid?.() === 0) giveStateTo(box, 4321);
      const r = await box.cli('restore', '--force', s.tmp.path('b.db'));
      expect(r.status, r.stderr).toBe(74);
      expect(r.stderr).toContain(
        `its lock file ${box.tmp.path('state/journal.db.lock')} is a symbolic link (to ${box.tmp.path(target)}), which punchgate never follows`,
      );
      expect(r.stderr).toContain(`remove it (rm ${box.tmp.path('state/journal.db.lock')}`);
      expect(existsSync(box.tmp.path('state/journal.db')), target).toBe(false);
    }
    expect(existsSync(box.tmp.path('rootonly/made-here'))).toBe(false);
    expect(statSync(box.tmp.path('rootonly/empty')).uid).toBe(process.getuid?.() ?? 0);
    // The link removed, the restore goes through.
    rmSync(box.tmp.path('state/journal.db.lock'));
    expect((await box.cli('restore', s.tmp.path('b.db'))).status).toBe(0);
  });

  it("run as root, never reads a backup through a link the service user planted at its name or on its way (74); root's own link is followed", async () => {
    // A known left-out until now: the service user put a link in its backups folder to a file only
    // root may read, and root's restore copied that file into the journal folder, the service
    // user's (and --check told what it holds).
    if (process.getuid?.() !== 0) return; // only root can own links for another user
    const { s, box } = await backupAndNewBox();
    mkdirSync(box.tmp.path('rootonly'), { mode: 0o700 });
    writeFileSync(box.tmp.path('rootonly/secret.db'), readFileSync(s.tmp.path('b.db')), { mode: 0o600 });
    giveStateTo(box, 4321);
    mkdirSync(box.tmp.path('state/backups'));
    chownSync(box.tmp.path('state/backups'), 4321, 4321);
    const planted = box.tmp.path('state/backups/latest.db');
    symlinkSync(box.tmp.path('rootonly/secret.db'), planted);
    lchownSync(planted, 4321, 4321);
    // And the whole folder swapped for a link (the service user owns state/).
    const folderLink = box.tmp.path('state/old');
    symlinkSync(box.tmp.path('rootonly'), folderLink);
    lchownSync(folderLink, 4321, 4321);
    // And a link to a folder of root's: refused as a link, before its type is looked at.
    const toFolder = box.tmp.path('state/backups/folder.db');
    symlinkSync(box.tmp.path('rootonly'), toFolder);
    lchownSync(toFolder, 4321, 4321);
    for (const [file, link, target] of [
      [planted, planted, box.tmp.path('rootonly/secret.db')],
      [`${folderLink}/secret.db`, folderLink, box.tmp.path('rootonly')],
      [toFolder, toFolder, box.tmp.path('rootonly')],
    ] as const)
      for (const check of [[], ['--check']]) {
        const r = await box.cli('restore', ...check, file);
        expect(r.status, r.stderr).toBe(74);
        expect(r.stderr).toContain(
          `${file}: ${link} is a symbolic link (to ${target}) owned by uid 4321, not root: root does not read a backup through another user's link`,
        );
        expect(r.stdout).not.toContain('can be restored');
        expect(existsSync(box.tmp.path('state/journal.db'))).toBe(false);
      }
    // Root's own link in a folder of root's (an admin's /backup -> /mnt/usb): followed.
    symlinkSync(box.tmp.path('rootonly'), box.tmp.path('usb'));
    const r = await box.cli('restore', box.tmp.path('usb/secret.db'));
    expect(r.status, r.stderr).toBe(0);
  });

  it('run as root, a backup in a folder the service user owns is read as that user: a file only root may read there is refused with the fix (74)', async () => {
    // That user may swap the file for a link at any moment between root's look and SQLite's open
    // (a hard link stands for the swap here): read as that user, a link leads only where it may read anyway.
    if (process.getuid?.() !== 0) return; // only root can act as another user
    const { s, box } = await backupAndNewBox();
    mkdirSync(box.tmp.path('rootonly'), { mode: 0o700 });
    writeFileSync(box.tmp.path('rootonly/secret.db'), readFileSync(s.tmp.path('b.db')), { mode: 0o600 });
    giveStateTo(box, 4321);
    mkdirSync(box.tmp.path('state/backups'));
    chownSync(box.tmp.path('state/backups'), 4321, 4321);
    const inThere = box.tmp.path('state/backups/latest.db');
    linkSync(box.tmp.path('rootonly/secret.db'), inThere);
    for (const check of [[], ['--check']]) {
      const r = await box.cli('restore', ...check, inThere);
      expect(r.status, r.stderr).toBe(74);
      expect(r.stderr).toContain(
        `${inThere} cannot be read by uid 4321, the owner of its folder ${box.tmp.path('state/backups')}: root reads a backup there as that user`,
      );
      expect(r.stderr).toContain(`chown 4321 ${inThere}`);
      expect(existsSync(box.tmp.path('state/journal.db'))).toBe(false);
    }
    // Its own copy, that user's: restored (and root's backup outside the folder too).
    rmSync(inThere);
    writeFileSync(inThere, readFileSync(s.tmp.path('b.db')), { mode: 0o600 });
    chownSync(inThere, 4321, 4321);
    const r = await box.cli('restore', inThere);
    expect(r.status, r.stderr).toBe(0);
    expect((await box.cli('restore', '--check', box.tmp.path('rootonly/secret.db'))).status).toBe(0);
  });

  it('run as root, a backup in a folder the service user owns is made as that user; a root folder others may write is refused (found by an adversarial trial)', async () => {
    // The trial's service user swapped the backup's file for a link to a root file while SQLite
    // wrote it, and root wrote the backup over that file. Made as the folder's owner, a link can
    // only lead where that user may write anyway.
    if (process.getuid?.() !== 0) return; // only root can act as another user
    const s = sandbox();
    s.punch(1, 'delivered');
    chmodSync(s.tmp.dir, 0o711);
    mkdirSync(s.tmp.path('backups'));
    chownSync(s.tmp.path('backups'), 4321, 4321);
    const r = await s.cli('backup', s.tmp.path('backups/one.db'));
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(s.tmp.path('backups/one.db')).uid).toBe(4321);
    mkdirSync(s.tmp.path('shared'));
    chmodSync(s.tmp.path('shared'), 0o777);
    const shared = await s.cli('backup', s.tmp.path('shared/two.db'));
    expect(shared.status).toBe(74);
    expect(shared.stderr).toContain(`${s.tmp.path('shared')} is root's but other users may write in it (mode 0777)`);
    expect(readdirSync(s.tmp.path('shared'))).toEqual([]);
  });

  it('run as root, never writes a backup through a link another user owns on the way; a link root owns is followed', async () => {
    // Found by an adversarial trial: the service user replaced its backup folder by a link, and the
    // nightly root `backup --keep` wrote (and pruned) where the link pointed.
    if (process.getuid?.() !== 0) return; // only root can own links for another user
    const s = sandbox();
    s.punch(1, 'delivered');
    mkdirSync(s.tmp.path('rootonly'));
    const link = s.tmp.path('backups');
    symlinkSync(s.tmp.path('rootonly'), link);
    lchownSync(link, 4321, 4321);
    for (const target of [link, `${link}/one.db`]) {
      const r = await s.cli('backup', target, ...(target === link ? ['--keep', '2'] : []));
      expect(r.status, r.stderr).toBe(74);
      expect(r.stderr).toContain(
        `${link} is a symbolic link (to ${s.tmp.path('rootonly')}) owned by uid 4321, not root: root does not write backups through another user's link`,
      );
    }
    expect(readdirSync(s.tmp.path('rootonly'))).toEqual([]);
    // Root's own link (as /var/run -> /run): followed.
    lchownSync(link, 0, 0);
    const r = await s.cli('backup', link, '--keep', '2');
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(s.tmp.path('rootonly'))).toHaveLength(1);
  });
});

/**
 * The box's state folder handed to the service user `uid`, as /var/lib/punchgate is: its way in
 * traversable (run as root, restore writes there as that user: src/util/folder-writer.ts).
 */
function giveStateTo(box: { tmp: { dir: string; path: (name: string) => string } }, uid: number): void {
  chmodSync(box.tmp.dir, 0o711);
  chownSync(box.tmp.path('state'), uid, uid);
}
