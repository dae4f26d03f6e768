import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { backupJournal } from '../../src/journal/backup.js';
import { refuseOverwrite } from '../../src/journal/backup-overwrite.js';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const punch = (code: string, minute: number) => ({
  terminal: 'gate-1',
  biometricCode: code,
  logTime: `2026-11-20 08:${String(minute).padStart(2, '0')}:00`,
});

/** A backup as punchgate made it before the mark existed: the same file, no mark, no seal. */
function unmark(path: string): void {
  const db = new Database(path);
  db.pragma('application_id = 0');
  db.exec('DROP TABLE IF EXISTS backup_seal');
  db.close();
}

describe('backup FILE over a backup made before the mark existed (adversarial trial)', () => {
  it("is written over without --force when its content is this site's and every punch of it is in the journal; refused when it holds punches the journal no longer has", async () => {
    const t = tempDir('punchgate-overwrite-');
    cleanups.push(t.cleanup);
    const journal = t.path('journal.db');
    const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
    j.ingest([punch('1001', 0), punch('1002', 1)]);
    const old = t.path('today.db');
    await backupJournal(journal, old);
    unmark(old);
    j.ingest([punch('1003', 2)]);
    // 2 punches in the old backup, 3 in the journal: the new backup holds all the old one did.
    expect(() => refuseOverwrite(old, 'plant-a', false, journal)).not.toThrow();
    // Another site's name: not this site's backup.
    expect(() => refuseOverwrite(old, 'plant-b', false, journal)).toThrow('it exists and is a file of');
    // A copy kept aside holding a punch the journal does not have (pruned, or a dead box's): refused, said why.
    const aside = t.path('kept.db');
    writeFileSync(aside, readFileSync(old));
    const db = new Database(aside);
    db.exec(`UPDATE punches SET biometric_code = '9999' WHERE biometric_code = '1002'`);
    db.close();
    expect(() => refuseOverwrite(aside, 'plant-a', false, journal)).toThrow(
      "it exists and is a copy of site plant-a's journal without a backup's mark that holds 1 punch the journal no longer has (and the new backup would not), and a backup replaces its target",
    );
    expect(() => refuseOverwrite(aside, 'plant-a', true, journal)).not.toThrow();
    j.close();
    // And the backup written over it is whole: 3 punches.
    const r = await backupJournal(journal, old);
    expect(r.punches).toBe(3);
  });
});
