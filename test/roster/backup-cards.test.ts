/**
 * A person removed by sync-users keeps every card in the backup: on a Hikvision terminal a person
 * may hold several cards (or one spelt with leading zeros), and the backup used to keep none.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/journal.js';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { listBackups } from '../../src/roster/backups.js';
import { runSyncUsers } from '../../src/roster/sync-command.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { tempDir } from '../helpers/tmp.js';
import { openClient, PASSWORD } from '../hikvision/helpers.js';

describe('removal backup: every card', () => {
  let sim: HikvisionSim | undefined;
  let tmp: ReturnType<typeof tempDir> | undefined;
  let journal: Journal | undefined;
  afterEach(async () => {
    journal?.close();
    await sim?.stop();
    tmp?.cleanup();
  });

  it('a leaver with two cards (one with leading zeros) is backed up with both, and `terminals backups` shows them', async () => {
    sim = await startHikvisionSim({
      password: PASSWORD,
      users: [
        { employeeNo: '1001', name: 'Ana' },
        { employeeNo: '1003', name: 'Chen Leaver' },
        { employeeNo: '1004', name: 'Dev Leaver' },
      ],
    });
    const c = await openClient(sim, PASSWORD);
    await c.users.setUpCard({ employeeNo: '1003', cardNo: '333' });
    await c.users.setUpCard({ employeeNo: '1003', cardNo: '0000334' });
    await c.users.setUpCard({ employeeNo: '1004', cardNo: '0012345678' });
    await c.http.close();
    tmp = tempDir('punchgate-backup-cards-');
    writeFileSync(tmp.path('reception.pass'), PASSWORD + '\n');
    const raw = {
      site: 'plant-a',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      terminals: [
        {
          name: 'reception',
          kind: 'hikvision',
          url: sim.url,
          username: 'admin',
          passwordFile: tmp.path('reception.pass'),
          timeoutMs: 5000,
          timezone: 'UTC',
        },
      ],
    };
    writeFileSync(
      tmp.path('roster.csv'),
      'code,name,card,active\n1001,Ana,,1\n1003,Chen Leaver,,0\n1004,Dev Leaver,,0\n',
    );
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    journal = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a' });
    const config = parseConfig(raw, tmp.dir);
    let out = '';
    const deps = {
      config,
      journal,
      now: () => Date.now(),
      out: { write: (s: string) => (out += s) },
      err: { write: (s: string) => (out += s) },
      scrub: (s: string) => s,
    };
    expect(await runSyncUsers({ roster: tmp.path('roster.csv') }, deps), out).toBe(0);
    expect(sim.users().map((u) => u.employeeNo)).toEqual(['1001']);

    const store = new UserBackupStore(journal.db);
    expect(store.latest('reception', '1003')?.cards).toEqual(['333', '0000334']);
    expect(store.latest('reception', '1004')?.cards).toEqual(['0012345678']);
    out = '';
    expect(listBackups(undefined, false, deps as never)).toBe(0);
    expect(out).toMatch(/1003 +Chen Leaver +333 0000334 /);
    expect(out).toMatch(/1004 +Dev Leaver +0012345678 /);
  });
});
