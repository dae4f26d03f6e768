import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { keepDamagedWal } from '../../src/journal/damaged-wal.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';
import { Journal } from '../../src/journal/index.js';
import { damageWalFrame, walAfterPowerCut, WAL_FRAME as FRAME } from '../helpers/damaged-journal.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const PAGE = 4096;

function afterPowerCut() {
  const tmp = tempDir('punchgate-wal-');
  cleanups.push(tmp.cleanup);
  const path = tmp.path('journal.db');
  return { tmp, path, wal: walAfterPowerCut(path) };
}

function openOwner(path: string) {
  const lines: { level: number; msg: string; keptAs?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const j = Journal.open({ path, site: 'plant-a', mode: 'owner', logger });
  const owed = j.counts().pending;
  j.close();
  return { lines, owed };
}

describe("the daemon's open of a journal whose write-ahead log was damaged (found by a damaged-journal trial)", () => {
  it('a frame changed before later commits: says what SQLite drops, at error, and keeps the log as it was', () => {
    const { path, wal } = afterPowerCut();
    expect(statSync(wal).size).toBeGreaterThan(32 + 3 * FRAME);
    // A byte of the second frame changed (a failing card): its checksum, and every later one, fail.
    damageWalFrame(wal);
    const damaged = readFileSync(wal);
    const { lines, owed } = openOwner(path);
    // SQLite reads the log up to the damaged frame: the later ingests are gone from the journal...
    expect(owed).toBeLessThan(600);
    // ... and that is said, once, with where the log is kept.
    const said = lines.filter((l) => l.level === 50 && /write-ahead log/.test(l.msg));
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toMatch(
      /was damaged .*: \d+ writes? after its damaged part, the last at \S+, could not be read/,
    );
    expect(said[0]!.msg).toContain('punchgate import');
    expect(readFileSync(said[0]!.keptAs!).equals(damaged)).toBe(true);
  });

  it('a whole log, or one whose last frame was torn by the power cut, opens without a word: nothing was dropped that was written whole', () => {
    const whole = afterPowerCut();
    const a = openOwner(whole.path);
    expect(a.owed).toBe(600);
    expect(a.lines.filter((l) => l.level >= 50)).toEqual([]);

    const torn = afterPowerCut();
    const frames = Math.floor((statSync(torn.wal).size - 32) / FRAME);
    truncateSync(torn.wal, 32 + (frames - 1) * FRAME + 24 + PAGE / 2);
    const b = openOwner(torn.path);
    expect(b.owed).toBe(400);
    expect(b.lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(existsSync(torn.path)).toBe(true);
  });
});

/**
 * The kept copy's name is known to the second (`<journal>.damaged-wal-<time>`), in the service
 * user's folder, and `punchgate run` may be started by hand as root. A link put at that name was
 * written through (copyFileSync follows it): the file it named was overwritten with the log,
 * whose bytes whoever wrote the log chose (found by an adversarial trial). Tested by calling the
 * copy directly, without root: the link's target is a file of this user.
 */
describe("the damaged log's kept copy, where something was put at its name", () => {
  it('never writes through a link or into a FIFO there: the copy takes the next name', () => {
    const { tmp, path, wal } = afterPowerCut();
    damageWalFrame(wal);
    const damaged = readFileSync(wal);
    const now = new Date('2026-12-01T21:40:00.000Z');
    const name = `${path}.damaged-wal-20261201T214000Z`;
    const victim = tmp.path('victim.conf');
    writeFileSync(victim, 'root: keep me\n');
    symlinkSync(victim, name);
    execFileSync('mkfifo', [`${name}-2`]);
    const kept = keepDamagedWal(path, now);
    expect(readFileSync(victim, 'utf8')).toBe('root: keep me\n');
    expect(kept?.keptAs).toBe(`${name}-3`);
    expect(readFileSync(kept!.keptAs).equals(damaged)).toBe(true);
    expect(lstatSync(kept!.keptAs).mode & 0o777).toBe(0o600);
    expect(lstatSync(name).isSymbolicLink()).toBe(true);
  });
});

/**
 * The kept copy is as large as the log; on a disk too full for it the copy failed, and punchgate
 * run stopped with exit 1 and only "EFBIG: file too large, write", no fix and no exit code
 * systemd's unit knows (found by an adversarial trial). A file size limit stands in for the full disk.
 */
describe("the damaged log's kept copy on a full disk", () => {
  it('punchgate run stops with exit 75 (restarted) and says the disk is full, no half copy left', async () => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const path = s.tmp.path('journal.db');
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    const wal = walAfterPowerCut(path);
    damageWalFrame(wal);
    const blocks = Math.floor(statSync(wal).size / 512) - 4;
    const r = await runPunchgate(['--config', s.config, 'run'], { shell: `trap '' XFSZ; ulimit -f ${blocks};` });
    expect(r.status, r.stderr).toBe(75);
    expect(r.stderr).toMatch(/disk is full|I\/O error/);
    expect(readdirSync(s.tmp.dir).filter((f) => f.includes('damaged-wal'))).toEqual([]);
  }, 60_000);
});
