import { chmodSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A journal an older punchgate made, started by hand or in a container with umask 022, is 0644
 * (with its -wal and -shm): punches are personal data. New journals are 0600 whatever the umask;
 * an upgrade trial found the old journal still 0644 after the new version had run on it. The
 * daemon's open now takes the group and other bits off, and adds none.
 */
describe("an older punchgate's journal readable by others", () => {
  const tmp = tempDir('punchgate-older-modes-');
  afterEach(() => tmp.cleanup());
  const modeOf = (p: string) => statSync(p).mode & 0o777;

  it('is made 0600 with its -wal and -shm by the daemon, and read-only commands change nothing', () => {
    const path = tmp.path('journal.db');
    Journal.open({ path, site: 'plant-a', mode: 'owner' }).close();
    chmodSync(path, 0o644);
    // Another connection keeps the -wal and -shm in place, as the old daemon's files after a kill.
    const other = new Database(path);
    try {
      other.pragma('journal_mode = WAL');
      other.prepare(`INSERT INTO terminals (name) VALUES ('gate')`).run();
      for (const f of [`${path}-wal`, `${path}-shm`]) chmodSync(f, 0o644);

      Journal.open({ path, site: 'plant-a', mode: 'readonly' }).close();
      expect([path, `${path}-wal`, `${path}-shm`].map(modeOf)).toEqual([0o644, 0o644, 0o644]);

      const j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
      expect([path, `${path}-wal`, `${path}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
      j.close();
    } finally {
      other.close();
    }
  });

  it('a journal its owner made read-only keeps no write bit it did not have', () => {
    const path = tmp.path('journal.db');
    Journal.open({ path, site: 'plant-a', mode: 'owner' }).close();
    chmodSync(path, 0o444);
    try {
      Journal.open({ path, site: 'plant-a', mode: 'owner' }).close();
    } catch {
      // refused as read-only where this user is not root; root may write it anyway
    }
    expect(modeOf(path)).toBe(0o400);
  });
});
