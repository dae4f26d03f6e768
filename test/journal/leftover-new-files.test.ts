import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournalDb } from '../../src/journal/open-db.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A start killed while it made a new journal (a SIGTERM or a power cut in its first seconds) left
 * `journal.db.new-<pid>` (and SQLite's -journal beside it); every later start removed only the
 * file named after its own process id, so those stayed for ever (found by a CI-time trial that
 * stopped a daemon in the middle of making its journal). The daemon's open removes a gone
 * process's files, and leaves a running one's.
 */
describe('files left by a start killed while it made the journal', () => {
  const dirs: { cleanup: () => void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));
  const folder = () => {
    const t = tempDir();
    dirs.push(t);
    return t.dir;
  };
  const open = (path: string) =>
    openJournalDb(path, { create: true, migrate: true, readonly: false, openTimeoutMs: 1000, busyTimeoutMs: 1000 });

  it("are removed at the daemon's next open, a running process's kept, other files untouched", () => {
    const dir = folder();
    const path = join(dir, 'journal.db');
    const gone = spawnSync('true').pid!; // exited: its id names no running process (barring reuse)
    const running = process.ppid; // the runner of this test: runs
    const left = [`journal.db.new-${gone}`, `journal.db.new-${gone}-journal`, `journal.db.new-${gone}-wal`];
    for (const f of [...left, `journal.db.new-${running}`, 'journal.db.new-notes.txt', 'other.db.new-1'])
      writeFileSync(join(dir, f), 'x');

    open(path).close(); // a first start: made, then swept
    expect(left.filter((f) => existsSync(join(dir, f)))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(
      expect.arrayContaining([`journal.db.new-${running}`, 'journal.db.new-notes.txt', 'other.db.new-1']),
    );

    writeFileSync(join(dir, `journal.db.new-${gone}`), 'x'); // killed after the link: the journal exists
    open(path).close();
    expect(existsSync(join(dir, `journal.db.new-${gone}`))).toBe(false);
    expect(existsSync(path)).toBe(true);
  });

  // The probe a disk sync's check makes and removes at once (file-system-probe.ts), left by a
  // process killed between the two: only a later probe of the same process id removed it.
  it("a disk sync's probe file left by a killed process is removed, beside the real file when the path is a link", () => {
    const dir = folder();
    mkdirSync(join(dir, 'real'));
    const real = join(dir, 'real', 'journal.db');
    const link = join(dir, 'journal.db');
    open(real).close();
    symlinkSync(real, link);
    const gone = spawnSync('true').pid!;
    const running = process.ppid;
    for (const f of [`.journal.db.sync-probe-${gone}`, `.journal.db.sync-probe-${running}`, '.journal.db.sync-probe-x'])
      writeFileSync(join(dir, 'real', f), '');

    open(link).close();
    expect(
      readdirSync(join(dir, 'real'))
        .filter((f) => f.includes('sync-probe'))
        .sort(),
    ).toEqual([`.journal.db.sync-probe-${running}`, '.journal.db.sync-probe-x'].sort());
  });

  it('are left alone by a read-only open (status, check)', () => {
    const dir = folder();
    const path = join(dir, 'journal.db');
    open(path).close();
    const gone = spawnSync('true').pid!;
    writeFileSync(join(dir, `journal.db.new-${gone}`), 'x');
    openJournalDb(path, {
      create: false,
      migrate: false,
      readonly: true,
      openTimeoutMs: 1000,
      busyTimeoutMs: 1000,
    }).close();
    expect(existsSync(join(dir, `journal.db.new-${gone}`))).toBe(true);
  });
});
