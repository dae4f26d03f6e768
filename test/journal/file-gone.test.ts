import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { JournalFileGoneError } from '../../src/journal/file-identity.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';

const punch = (i: number) => ({
  terminal: 'gate-1',
  biometricCode: String(1000 + i),
  logTime: `2026-11-02 08:00:${String(i).padStart(2, '0')}`,
});

/** How many punches the journal file alone holds (as a crash leaves it: no -wal beside it). */
function punchesInFileAlone(path: string, dir: string): number {
  mkdirSync(dir, { recursive: true });
  copyFileSync(path, `${dir}/j.db`);
  const db = new Database(`${dir}/j.db`, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * The journal file or its write-ahead log deleted under the running daemon (a trial: `rm
 * journal.db-wal`, or `rm journal.db`). SQLite went on writing into the deleted file: every punch
 * was answered OK and lost at the next restart (the whole journal, for the file itself), while
 * the daemon said nothing. Now the first write that finds it refuses (no terminal is told OK),
 * saves what the open connection holds, and tells onFatal (the daemon exits 74 and starts again).
 */
describe('a journal file deleted under the process writing it', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const fatal: unknown[] = [];
  beforeEach(() => {
    tmp = tempDir();
    fatal.length = 0;
    journal = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', onFatal: (e) => fatal.push(e) });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('a deleted write-ahead log: the next write is refused, and what the log held is copied into the journal file', async () => {
    journal.ingest([punch(1)]);
    const first = journal.ingestSyncedLater([punch(2)]);
    await first.synced;
    unlinkSync(tmp.path('j.db-wal'));
    expect(() => journal.ingestSyncedLater([punch(3)])).toThrow(JournalFileGoneError);
    expect(fatal[0]).toBeInstanceOf(JournalFileGoneError);
    expect(String(fatal[0])).toMatch(
      /j\.db-wal.*was deleted while punchgate run was writing it; all it held .* is copied into/,
    );
    // Every later write is refused as well: nothing more goes into the deleted log.
    expect(() => journal.ingest([punch(4)])).toThrow(JournalFileGoneError);
    // The journal file alone (the log gone with the process) holds the punches answered OK.
    expect(punchesInFileAlone(tmp.path('j.db'), tmp.path('crash'))).toBeGreaterThanOrEqual(2);
  });

  it('found inside a transaction (a push upload): undone, and saved once it is (saveBeforeExit, as the daemon exits)', async () => {
    const first = journal.ingestSyncedLater([punch(1)]);
    await first.synced;
    unlinkSync(tmp.path('j.db-wal'));
    expect(() => journal.db.transaction(() => journal.ingest([punch(2)])).immediate()).toThrow(JournalFileGoneError);
    expect(String(journal.saveBeforeExit())).toMatch(
      /was deleted while punchgate run was writing it; all it held .* is copied into/,
    );
    expect(punchesInFileAlone(tmp.path('j.db'), tmp.path('crash'))).toBe(1);
  });

  it('a write-ahead log replaced by another file is the same', () => {
    journal.ingest([punch(1)]);
    unlinkSync(tmp.path('j.db-wal'));
    writeFileSync(tmp.path('j.db-wal'), '');
    expect(() => journal.ingest([punch(2)])).toThrow(/was replaced by another file/);
    expect(punchesInFileAlone(tmp.path('j.db'), tmp.path('crash'))).toBeGreaterThanOrEqual(1);
  });

  it('a deleted journal file: the write is refused and the journal is saved back under its name', () => {
    journal.ingest([punch(1), punch(2)]);
    unlinkSync(tmp.path('j.db'));
    expect(() => journal.ingest([punch(3)])).toThrow(JournalFileGoneError);
    expect(String(fatal[0])).toMatch(/j\.db was deleted while punchgate run was writing it.*saved back as/);
    expect(existsSync(tmp.path('j.db'))).toBe(true);
    // Private, as the journal was (the copy was made 0644, readable by every user of the box).
    expect(statSync(tmp.path('j.db')).mode & 0o777).toBe(0o600);
    expect(punchesInFileAlone(tmp.path('j.db'), tmp.path('crash'))).toBeGreaterThanOrEqual(2);
  });

  it('a journal file truncated in place (copytruncate, > journal.db): the write is refused, the log moved aside, the file left alone', () => {
    journal.ingest([punch(1), punch(2)]);
    journal.db.pragma('wal_checkpoint(TRUNCATE)');
    journal.ingest([punch(3)]);
    truncateSync(tmp.path('j.db'), 0);
    expect(() => journal.ingest([punch(4)])).toThrow(JournalFileGoneError);
    expect(String(fatal[0])).toMatch(
      /j\.db was written over in place while punchgate run was writing it: it holds 0 bytes where it held \d+/,
    );
    expect(String(fatal[0])).toMatch(/the write-ahead log is moved aside \(.*j\.db\.overwritten-\w+-wal/);
    expect(existsSync(tmp.path('j.db-wal'))).toBe(false);
    // Every later write is refused as well, and the close lays nothing over the file under the name.
    expect(() => journal.ingest([punch(5)])).toThrow(JournalFileGoneError);
    journal.close();
    expect(readFileSync(tmp.path('j.db')).length).toBe(0);
  });

  it('an older backup copied over the journal file in place: refused, and the copy is not damaged by a checkpoint', () => {
    journal.ingest([punch(1)]);
    journal.db.pragma('wal_checkpoint(TRUNCATE)');
    copyFileSync(tmp.path('j.db'), tmp.path('older.db'));
    journal.ingest(Array.from({ length: 2000 }, (_, i) => ({ ...punch(0), biometricCode: String(20_000 + i) })));
    journal.db.pragma('wal_checkpoint(TRUNCATE)');
    journal.ingest([punch(2)]);
    copyFileSync(tmp.path('older.db'), tmp.path('j.db'));
    expect(() => journal.ingest([punch(3)])).toThrow(/was written over in place/);
    // What the connection still read is saved whole beside it, private as the journal.
    const saved = /saved whole as (\S+) /.exec(String(fatal[0]))?.[1];
    expect(saved && statSync(saved).mode & 0o777).toBe(0o600);
    expect(punchesInFileAlone(saved!, tmp.path('saved'))).toBeGreaterThanOrEqual(2002);
    journal.close();
    expect(readFileSync(tmp.path('j.db')).equals(readFileSync(tmp.path('older.db')))).toBe(true);
    expect(punchesInFileAlone(tmp.path('j.db'), tmp.path('crash'))).toBe(1);
  });

  it('a backup larger than the journal copied over it in place: known by its header (rollback mode), refused', () => {
    journal.ingest([punch(1)]);
    journal.db.pragma('wal_checkpoint(TRUNCATE)');
    journal.db.prepare('VACUUM INTO ?').run(tmp.path('backup.db'));
    // Longer than the journal file, so that its size alone does not tell.
    writeFileSync(tmp.path('backup.db'), Buffer.concat([readFileSync(tmp.path('backup.db')), Buffer.alloc(1 << 20)]));
    journal.ingest([punch(2)]);
    copyFileSync(tmp.path('backup.db'), tmp.path('j.db'));
    expect(() => journal.ingest([punch(3)])).toThrow(
      /j\.db was written over in place .*its header is no longer the journal's/,
    );
    journal.close();
    expect(readFileSync(tmp.path('j.db')).equals(readFileSync(tmp.path('backup.db')))).toBe(true);
  });
});
