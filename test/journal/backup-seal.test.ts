import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sealWarning } from '../../src/cli/commands/backup.js';
import { backupJournal } from '../../src/journal/backup.js';
import { checkSeal } from '../../src/journal/backup-seal.js';
import { Journal } from '../../src/journal/index.js';
import { restoreJournal } from '../../src/journal/restore.js';
import { verifyBackup } from '../../src/journal/verify-backup.js';
import { schemaProblems } from '../../src/journal/schema-check.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * A value changed where it stands in the file, everywhere it is (the punch's row and its index
 * entries, as a copy that flips the same bits in each would): SQLite's integrity check, which
 * compares rows with their indexes, passes; only what the rows say differs.
 */
function flip(path: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const text = readFileSync(path).toString('latin1');
  expect(text, `${from} in ${path}`).toContain(from);
  writeFileSync(path, Buffer.from(text.split(from).join(to), 'latin1'));
}

function codes(path: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT biometric_code AS c FROM punches ORDER BY id').all() as { c: string }[]).map((r) => r.c);
  } finally {
    db.close();
  }
}

async function journalWithBackup(n: number) {
  const t = tempDir('punchgate-seal-');
  cleanups.push(t.cleanup);
  const journal = t.path('journal.db');
  const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
  j.ingest(
    Array.from({ length: n }, (_, i) => ({
      terminal: 'gate-1',
      biometricCode: String(700100 + i),
      logTime: `2026-11-20 08:${String(i % 60).padStart(2, '0')}:00`,
    })),
  );
  j.close();
  const backup = t.path('b.db');
  await backupJournal(journal, backup);
  return { t, journal, backup };
}

describe('a backup whose bytes were changed inside a row is not restored in silence (adversarial trial)', () => {
  it('a flipped digit of an employee code: refused with the fix, nothing written; --force restores it and says so', async () => {
    const { t, backup } = await journalWithBackup(50);
    flip(backup, '700123', '700923');
    const target = t.path('new.db');
    const o = { journalPath: target, backupPath: backup, site: 'plant-a', now: new Date() };
    await expect(restoreJournal(o)).rejects.toThrow(
      `${backup} cannot be restored: what it holds does not match the digest written into it when it was made: a byte of it was changed after it was written`,
    );
    expect(existsSync(target)).toBe(false);
    const r = await restoreJournal({ ...o, force: true });
    expect(r.seal.state).toBe('changed');
    expect(sealWarning(backup, r.seal)).toContain('restored with --force although what it holds does not match');
    // The changed punch is what a silent restore handed on: 50 journalled, 50 restored, one of them another code.
    const restored = codes(target);
    expect(restored).toHaveLength(50);
    expect(restored).toContain('700923');
    expect(restored).not.toContain('700123');
  });

  it('a whole backup restores verified, and the journal carries no seal; a backup made before seals restores with a warning', async () => {
    const { t, journal, backup } = await journalWithBackup(20);
    const target = t.path('new.db');
    const r = await restoreJournal({ journalPath: target, backupPath: backup, site: 'plant-a', now: new Date() });
    expect(r.seal).toEqual({ state: 'ok' });
    expect(sealWarning(backup, r.seal)).toBeUndefined();
    expect(codes(target)).toEqual(codes(journal));
    const db = new Database(target, { readonly: true });
    expect(db.prepare(`SELECT name FROM sqlite_schema WHERE name = 'backup_seal'`).get()).toBeUndefined();
    expect(schemaProblems(db)).toEqual([]);
    db.close();
    // As a backup of the last version: the same file without its seal.
    const old = new Database(backup);
    old.exec('DROP TABLE backup_seal');
    expect(schemaProblems(old)).toEqual([]);
    old.close();
    const r2 = await restoreJournal({
      journalPath: t.path('new2.db'),
      backupPath: backup,
      site: 'plant-a',
      now: new Date(),
    });
    expect(r2.seal).toEqual({ state: 'none' });
    expect(sealWarning(backup, r2.seal)).toMatch(/carries no digest of its content .* cannot be found/);
    expect(codes(t.path('new2.db'))).toHaveLength(20);
  });

  it('restore --check finds the same without restoring (the journal untouched): a sealed backup passes, a changed one is refused, an unsealed one passes unverified', async () => {
    const { t, journal, backup } = await journalWithBackup(40);
    expect(verifyBackup(backup, journal)).toMatchObject({ seal: { state: 'ok' }, summary: { punches: 40 } });
    const changed = t.path('changed.db');
    writeFileSync(changed, readFileSync(backup));
    flip(changed, '700111', '700811');
    expect(() => verifyBackup(changed, journal)).toThrow(
      `${changed} would not be restored: what it holds does not match the digest written into it when it was made`,
    );
    const old = new Database(backup);
    old.exec('DROP TABLE backup_seal');
    old.close();
    expect(verifyBackup(backup, journal)).toMatchObject({ seal: { state: 'none' }, summary: { punches: 40 } });
  });

  it('a flipped time of a punch is found too, and a seal of another shape is not trusted', async () => {
    const { t, backup } = await journalWithBackup(30);
    flip(backup, '2026-11-20 08:17:00', '2026-11-20 08:17:30');
    await expect(
      restoreJournal({ journalPath: t.path('n.db'), backupPath: backup, site: 'plant-a', now: new Date() }),
    ).rejects.toThrow(/does not match the digest/);
    const db = new Database(backup);
    db.exec(`UPDATE backup_seal SET algorithm = 'md5'`);
    expect(checkSeal(db)).toEqual({ state: 'changed', why: 'its seal is not one punchgate backup writes' });
    db.close();
  });
});
