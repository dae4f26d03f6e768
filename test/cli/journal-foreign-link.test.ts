import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * Run as root, a command opens the journal by journal.path. The service user owns the journal's
 * folder, so it may make `journal.db` a link to a punchgate journal of root's elsewhere (a backup
 * root keeps, another box's copy): found by a trial of the service user's links, `sudo punchgate
 * flush` then delivered from that file and settled its punches, and every command made its -wal and
 * -shm in root's folder. Such a link (one another user owns, anywhere on the path) is refused, exit 74.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.skipIf(process.getuid?.() !== 0)("root's commands and a link the service user planted at the journal", () => {
  it('every command refuses it (74) and names the link and its owner; check fails it; the file it points at is not touched', async () => {
    const box = cliSandbox({ journal: { path: 'state/journal.db' } });
    cleanups.push(box.tmp.cleanup);
    chmodSync(box.tmp.dir, 0o711);
    // root's journal elsewhere, with one punch waiting.
    mkdirSync(box.tmp.path('rootonly'), { mode: 0o700 });
    renameSync(box.tmp.path('journal.db'), box.tmp.path('rootonly/kept.db'));
    const j = Journal.open({ path: box.tmp.path('rootonly/kept.db'), site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1001', logTime: '2026-11-20 08:00:00' }]);
    j.close();
    const before = sha(box.tmp.path('rootonly/kept.db'));
    const files = readdirSync(box.tmp.path('rootonly')).sort();
    // The service user's folder, and its link.
    mkdirSync(box.tmp.path('state'));
    chownSync(box.tmp.path('state'), 4321, 4321);
    symlinkSync(box.tmp.path('rootonly/kept.db'), box.tmp.path('state/journal.db'));
    lchownSync(box.tmp.path('state/journal.db'), 4321, 4321);
    const words = `the journal ${box.tmp.path('state/journal.db')} is reached through ${box.tmp.path('state/journal.db')}, a symbolic link (to ${box.tmp.path('rootonly/kept.db')}) owned by uid 4321, not root`;
    for (const args of [['flush'], ['punches', '--count'], ['status'], ['punches', 'retry']]) {
      const r = await box.cli(...args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(74);
      expect(r.stderr).toContain(words);
      expect(r.stderr).toContain(`remove the link (rm ${box.tmp.path('state/journal.db')})`);
    }
    const check = await box.cli('check');
    expect(check.status).not.toBe(0);
    expect(check.stdout).toContain(`FAIL journal: ${box.tmp.path('state/journal.db')} is reached through`);
    expect(sha(box.tmp.path('rootonly/kept.db'))).toBe(before);
    expect(readdirSync(box.tmp.path('rootonly')).sort()).toEqual(files);
    // Root's own link (a journal folder moved to another disk): followed.
    lchownSync(box.tmp.path('state/journal.db'), 0, 0);
    const r = await box.cli('punches', '--count');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('1');
  }, 120_000);
});
