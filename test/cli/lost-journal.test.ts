import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const punches = (day: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    terminal: 'gate-1',
    device: 'SN-1',
    biometricCode: String(1000 + (i % 97)),
    logTime: `2026-11-0${day} 08:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
  }));

/** A journal with 300 punches owed and a nightly backup of them, then 200 more owed. */
async function sandbox() {
  const s = cliSandbox({ status: { listen: false } });
  cleanups.push(s.tmp.cleanup);
  const journal = s.tmp.path('journal.db');
  const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
  j.ingest(punches(1, 300));
  j.close();
  const backup = s.tmp.path('nightly.db');
  expect((await s.cli('backup', backup)).status).toBe(0);
  return { ...s, journal, backup };
}

const count = (path: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM punches WHERE state = 'pending'`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

async function expectRefused(s: Awaited<ReturnType<typeof sandbox>>, sign: RegExp) {
  const run = await s.cli('run');
  expect(run.status, run.stdout + run.stderr).toBe(74);
  expect(run.stderr).toMatch(sign);
  expect(run.stderr).toContain(`punchgate restore ${s.backup}`);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  // Nothing made: no empty journal that would forget the owed punches.
  expect(existsSync(s.journal)).toBe(false);
  const status = await s.cli('status');
  expect(status.status).toBe(74);
  expect(status.stderr).toMatch(sign);
  const line = (await s.cli('check')).stdout.split('\n').find((l) => / journal: /.test(l)) ?? '';
  expect(line).toMatch(/^FAIL journal: /);
  expect(line).toMatch(sign);
  expect(line).not.toContain('punchgate run creates it');
}

describe('the journal lost while punchgate was stopped (found by a damaged-journal trial)', () => {
  it('backed up before: run, status and check refuse it (74) and name the backup, never a new empty journal', async () => {
    const s = await sandbox();
    rmSync(s.journal);
    await expectRefused(
      s,
      /does not exist, but \S+journal\.db\.last-backup\.json records a backup of it \(300 punches/,
    );
    // The way out it names: restore, then run opens it.
    expect((await s.cli('restore', s.backup)).status).toBe(0);
    expect(count(s.journal)).toBe(300);
  });

  it('its write-ahead log left behind (a power cut before a checkpoint): refused, the log not written to, and restore keeps it aside', async () => {
    const s = await sandbox();
    // The state a power cut leaves: the last punches only in the -wal. Copied while it is open.
    const j = Journal.open({ path: s.journal, site: 'plant-a', mode: 'owner' });
    j.ingest(punches(2, 200));
    copyFileSync(`${s.journal}-wal`, s.tmp.path('wal.copy'));
    j.close();
    rmSync(s.journal);
    renameSync(s.tmp.path('wal.copy'), `${s.journal}-wal`);
    const wal = readFileSync(`${s.journal}-wal`);
    await expectRefused(s, /does not exist, but its write-ahead log \S+journal\.db-wal \(\d+ bytes\) is there/);
    expect(readFileSync(`${s.journal}-wal`).equals(wal)).toBe(true);
    // The restore it names keeps the log aside: SQLite would lay its pages over the restored file.
    const restored = await s.cli('restore', s.backup);
    expect(restored.status, restored.stderr).toBe(0);
    const kept = /the write-ahead log of the journal that was gone is kept as (\S+): /.exec(restored.stdout);
    expect(kept, restored.stdout).not.toBeNull();
    expect(readFileSync(kept![1]!).equals(wal)).toBe(true);
    expect(existsSync(`${s.journal}-wal`)).toBe(false);
    expect(count(s.journal)).toBe(300);
  });
});
