/**
 * `punchgate terminals backups` flags a backup whose name was no text when it was read (kept with
 * U+FFFD): restore-user would write that user without a name, so the admin hears it at the
 * listing, with the code and the fix, not first at the restore.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { cliSandbox } from '../helpers/cli.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('terminals backups: a name the terminal character set could not read', () => {
  it('is flagged under the table with its code and the fix; a readable name is not', async () => {
    const s = cliSandbox({ terminals: [{ name: 'gate-1', kind: 'zk', host: '127.0.0.1', port: 4370 }] });
    cleanups.push(s.tmp.cleanup);
    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'shared' });
    const store = new UserBackupStore(j.db);
    for (const [code, name] of [
      ['1003', 'Chen Li'],
      ['2040', '\ufffd\ufffd Wei'],
    ])
      store.save({
        terminal: 'gate-1',
        serial: 'SN-1',
        fpVersion: '10',
        code: code!,
        uid: 3,
        name: name!,
        card: 0,
        privilege: 0,
        reason: 'sync-users: inactive in the roster',
        templates: [],
      });
    j.close();

    const r = await s.cli('terminals', 'backups');
    expect(r.status, r.stderr).toBe(0);
    const notes = r.stdout.split('\n').filter((l) => l.startsWith('backup of '));
    expect(notes).toEqual([
      expect.stringMatching(
        /^backup of code 2040 from gate-1: its name was no text when it was read \(kept with U\+FFFD\).*restore-user gate-1 2040 writes the user without a name.*sync-users.*encoding: for gate-1/,
      ),
    ]);
    const json = JSON.parse((await s.cli('terminals', 'backups', '--json')).stdout) as {
      code: string;
      nameUnreadable?: boolean;
    }[];
    expect(json.map((b) => `${b.code} ${b.nameUnreadable ?? false}`).sort()).toEqual(['1003 false', '2040 true']);
  });
});
