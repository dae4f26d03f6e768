/**
 * sync-users on a Dahua terminal: the CGI simulator on loopback (Digest), both user APIs (AccessUser.cgi
 * on newer firmware, recordUpdater.cgi on older), a real journal file, sync-users as a child of the built CLI.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startDahuaSim, type DahuaSim } from '../../src/sim/dahua/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD } from './helpers.js';

const ROSTER = [
  'code,name,card,active',
  '1001,Ana One,111,1', // rename
  '1002,Ben,222,', // card change
  '1003,Chen Leaver,,0', // leaver
  '1004,New Hire,444,', // hire
];

describe.each(['accessUser', 'recordUpdater'] as const)('sync-users on a Dahua terminal (%s firmware)', (api) => {
  let sim: DahuaSim | undefined;
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(async () => {
    await sim?.stop();
    tmp?.cleanup();
    sim = tmp = undefined;
  });

  it('adds, updates and removes as the roster says; a second run writes nothing', async () => {
    sim = await startDahuaSim({
      password: PASSWORD,
      userApi: api,
      users: [
        { UserID: '1001', UserName: 'Ana', Authority: 2, cards: ['111'] },
        { UserID: '1002', UserName: 'Ben', Authority: 2, cards: ['200'] },
        { UserID: '1003', UserName: 'Chen Leaver', Authority: 2, cards: ['333'] },
        { UserID: '9001', UserName: 'Site Admin', Authority: 1, cards: [] },
      ],
    });
    tmp = tempDir('punchgate-roster-dahua-');
    writeFileSync(tmp.path('front-door.pass'), PASSWORD + '\n');
    writeFileSync(
      tmp.path('punchgate.yaml'),
      stringify({
        site: 'plant-d',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [
          {
            name: 'front-door',
            kind: 'dahua',
            host: '127.0.0.1',
            port: sim.port,
            passwordFile: tmp.path('front-door.pass'),
            timeoutMs: 5000,
            timezone: 'UTC',
          },
        ],
      }),
    );
    writeFileSync(tmp.path('roster.csv'), ROSTER.join('\n') + '\n');
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-d', mode: 'owner' }).close();
    const people = () =>
      sim!
        .users()
        .map((u) => `${u.UserID} ${u.UserName} [${u.cards.join(',')}]`)
        .sort();
    const args = [
      '--config',
      tmp.path('punchgate.yaml'),
      'terminals',
      'sync-users',
      '--roster',
      tmp.path('roster.csv'),
    ];

    const run = await runPunchgate([...args, '--json']);
    expect(run.status, run.stderr + run.stdout).toBe(0);
    const t = JSON.parse(run.stdout).terminals[0];
    expect(t).toMatchObject({ terminal: 'front-door', kind: 'dahua', reached: true });
    expect(
      t.changes.map((c: { action: string; code: string; status: string }) => `${c.action} ${c.code} ${c.status}`),
    ).toEqual(['remove 1003 applied', 'update 1001 applied', 'update 1002 applied', 'add 1004 applied']);
    expect(people()).toEqual(['1001 Ana One [111]', '1002 Ben [222]', '1004 New Hire [444]', '9001 Site Admin []']);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);

    const again = await runPunchgate(args);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 added, 0 updated, 0 removed');
    expect(people()).toEqual(['1001 Ana One [111]', '1002 Ben [222]', '1004 New Hire [444]', '9001 Site Admin []']);
    // terminals users shows what the terminal holds now.
    const listed = await runPunchgate(['--config', tmp.path('punchgate.yaml'), 'terminals', 'users', 'front-door']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^1004 +New Hire +user +444$/m);
    expect(sim.auth().failures).toBe(0);

    // Cards as spelt on the roster (leading zeros, as printed on EM cards): a new card goes on as
    // spelt; a card equal as a number ("0000000222" is 222) is the same card, nothing written.
    writeFileSync(
      tmp.path('roster.csv'),
      ['code,name,card', '1002,Benjamin,0000000222', '1004,New Hire,0000000555'].join('\n') + '\n',
    );
    const spelt = await runPunchgate(args);
    expect(spelt.status, spelt.stderr + spelt.stdout).toBe(0);
    // Ben's name changes; his card (the same number) keeps the terminal's spelling.
    expect(spelt.stdout).toContain('0 added, 2 updated, 0 removed');
    expect(people()).toEqual([
      '1001 Ana One [111]',
      '1002 Benjamin [222]',
      '1004 New Hire [0000000555]',
      '9001 Site Admin []',
    ]);
  });
});
