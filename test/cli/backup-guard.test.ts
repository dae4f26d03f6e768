import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { cliSandbox } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sandbox(extra: Record<string, unknown> = {}) {
  const s = cliSandbox(extra);
  cleanups.push(s.tmp.cleanup);
  const journal = s.tmp.path('journal.db');
  const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
  j.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1001', logTime: '2026-11-20 08:00:00' }]);
  j.close();
  return { ...s, journal };
}

describe('punchgate restore of an empty file', () => {
  it('says it is empty (a backup never written, or a full disk) and what to try, not "not a punchgate journal"', async () => {
    const s = sandbox();
    writeFileSync(s.tmp.path('empty.db'), '');
    const r = await s.cli('restore', s.tmp.path('empty.db'));
    expect(r.status).toBe(65);
    expect(r.stderr).toContain('empty.db cannot be restored: it is empty (0 bytes)');
    expect(r.stderr).toContain('a disk that was full');
    expect(r.stderr).toContain('restore another backup');
    expect(r.stderr).not.toContain('not a punchgate journal');
  });
});

describe('punchgate backup FILE over an existing file', () => {
  it('refuses a file that is not a backup of this site (unchanged), unless --force; writes over its own backup', async () => {
    const s = sandbox();
    const notes = s.tmp.path('notes.txt');
    writeFileSync(notes, 'the only copy of something\n');
    const refused = await s.cli('backup', notes);
    expect(refused.status).toBe(74);
    expect(refused.stderr).toContain(
      `cannot write the backup ${notes}: it exists and is a file of 27 bytes that is not a punchgate backup of site plant-a`,
    );
    expect(refused.stderr).toContain('--force writes over it');
    expect(readFileSync(notes, 'utf8')).toBe('the only copy of something\n');

    // Another site's backup is not this site's to replace either.
    const other = cliSandbox({ site: 'plant-b' });
    cleanups.push(other.tmp.cleanup);
    const j = Journal.open({ path: other.tmp.path('journal.db'), site: 'plant-b', mode: 'owner' });
    j.ingest([{ terminal: 'gate-9', device: 'SN-9', biometricCode: '9', logTime: '2026-11-20 09:00:00' }]);
    j.close();
    const theirs = s.tmp.path('plant-b.db');
    expect((await other.cli('backup', theirs)).status).toBe(0);
    const before = readFileSync(theirs);
    expect((await s.cli('backup', theirs)).status).toBe(74);
    expect(readFileSync(theirs).equals(before)).toBe(true);

    // This site's own backup is replaced, as a nightly `backup today.db` does.
    const mine = s.tmp.path('today.db');
    expect((await s.cli('backup', mine)).status).toBe(0);
    const again = await s.cli('backup', mine);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);

    const forced = await s.cli('backup', notes, '--force');
    expect(forced.status).toBe(0);
    expect(statSync(notes).size).toBeGreaterThan(27);
  }, 60_000);

  it('never writes over the journal itself, --force or not; --keep into a folder still prunes', async () => {
    const s = sandbox();
    const r = await s.cli('backup', s.journal, '--force');
    expect(r.status).toBe(74);
    expect(r.stderr).toContain('it is the journal itself');
    const folder = s.tmp.path('backups');
    for (let i = 0; i < 2; i++) expect((await s.cli('backup', folder, '--keep', '2')).status).toBe(0);
    const last = await s.cli('backup', folder, '--keep', '2');
    expect(last.stdout).toContain('removed 1 older backup of plant-a');
  }, 60_000);
});

describe('the last backup in status, status --json and check', () => {
  it('records each backup beside the journal; says when and where, and warns once it is older than journal.backupAlertAfterDays', async () => {
    const s = sandbox({ journal: { path: 'journal.db', backupAlertAfterDays: 3 } });
    const config = parseConfig(parse(readFileSync(s.config, 'utf8')), s.tmp.dir);
    const report = (now: number) => {
      const j = Journal.open({ path: s.journal, site: 'plant-a', mode: 'shared' });
      try {
        return buildStatus(j, config, now, { freeBytes: null });
      } finally {
        j.close();
      }
    };
    expect(formatStatus(report(Date.now()))).toContain('\nBackup\n  last backup: none recorded on this box');

    const file = s.tmp.path('b.db');
    expect((await s.cli('backup', file)).status).toBe(0);
    const json = JSON.parse((await s.cli('status', '--json')).stdout) as {
      backup: { lastAt: string; path: string; punches: number; alertAfterDays: number };
      alertItems: { kind: string }[];
    };
    expect(json.backup.path).toBe(file);
    expect(json.backup.punches).toBe(1);
    expect(json.backup.alertAfterDays).toBe(3);
    const at = Date.parse(json.backup.lastAt);
    expect(Date.now() - at).toBeLessThan(60_000);
    expect(json.alertItems.map((a) => a.kind)).not.toContain('backup-old');
    expect(formatStatus(report(at + 3 * 86_400_000))).toMatch(
      /\nBackup\n {2}last backup: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d, .*b\.db \(1 punches\)\n/,
    );
    expect(report(at + 3 * 86_400_000).alertItems.map((a) => a.kind)).not.toContain('backup-old');

    // Four days on: an alert in the status, a warning in check (the record's time moved back, as a timer that stopped leaves it).
    const old = report(at + 4 * 86_400_000 + 1000).alertItems.find((a) => a.kind === 'backup-old')!;
    expect(old.cause).toContain('the last backup of the journal is 4 days old');
    expect(old.cause).toContain('journal.backupAlertAfterDays: 3');
    expect(old.fix).toContain('journalctl -u punchgate-backup');
    const record = `${s.journal}.last-backup.json`;
    const r = JSON.parse(readFileSync(record, 'utf8')) as { at: string };
    writeFileSync(record, JSON.stringify({ ...r, at: new Date(Date.now() - 4 * 86_400_000 - 1000).toISOString() }));
    const check = await s.cli('check');
    expect(check.stdout).toContain('WARN backup: the last backup of the journal is 4 days old');

    // A record that cannot be read is said, not taken for "none".
    writeFileSync(record, 'garbage');
    expect(report(Date.now()).alertItems.find((a) => a.kind === 'backup-unknown')?.cause).toContain(
      'when the journal was last backed up is not known',
    );
  }, 60_000);
});
