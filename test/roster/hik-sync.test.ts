/**
 * sync-users on a Hikvision terminal: the ISAPI simulator on loopback (Digest authentication,
 * pages capped at 30), a real journal file, sync-users in-process and as a child of the built CLI.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/journal.js';
import { runSyncUsers, type SyncCommandOptions } from '../../src/roster/sync-command.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { openClient, PASSWORD } from '../hikvision/helpers.js';

const ROSTER = [
  'code,name,card,active',
  '1001,Ana One,111,1', // rename
  '1002,Ben,222,', // card change
  '1003,Chen Leaver,,0', // leaver
  '1004,New Hire,444,', // hire
  '9001,Site Admin,,no', // a device administrator the roster calls a leaver: kept
];

const WRITES =
  /^(PUT|POST) \/ISAPI\/AccessControl\/(UserInfo\/(SetUp|Record|Modify)|UserInfoDetail\/Delete|CardInfo\/(SetUp|Delete))$/;

describe('sync-users on a Hikvision terminal', () => {
  let sim: HikvisionSim | undefined;
  let tmp: ReturnType<typeof tempDir> | undefined;
  let journal: Journal | undefined;
  afterEach(async () => {
    journal?.close();
    await sim?.stop();
    tmp?.cleanup();
    sim = tmp = journal = undefined;
  });

  /** The simulator with five people (35 strangers more, so that the search needs two pages) and a config. */
  async function setup(password = PASSWORD) {
    sim = await startHikvisionSim({
      password,
      users: [
        { employeeNo: '1001', name: 'Ana', doorRight: '1,2' },
        { employeeNo: '1002', name: 'Ben' },
        { employeeNo: '1003', name: 'Chen Leaver' },
        { employeeNo: '9001', name: 'Site Admin', localUIRight: true },
        ...Array.from({ length: 35 }, (_, i) => ({
          employeeNo: `5${String(i).padStart(3, '0')}`,
          name: `Stranger ${i}`,
        })),
      ],
    });
    const c = await openClient(sim, password);
    await c.users.setUpCard({ employeeNo: '1001', cardNo: '111' });
    await c.users.setUpCard({ employeeNo: '1002', cardNo: '200' });
    await c.users.setUpCard({ employeeNo: '1002', cardNo: '201' });
    await c.users.setUpCard({ employeeNo: '1003', cardNo: '333' });
    await c.http.close();
    sim.clearRequests();
    tmp = tempDir('punchgate-roster-hik-');
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
    writeFileSync(tmp.path('punchgate.yaml'), stringify(raw));
    writeFileSync(tmp.path('roster.csv'), ROSTER.join('\n') + '\n');
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
    journal = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a' });
    return {
      config: parseConfig(raw, tmp.dir),
      roster: tmp.path('roster.csv'),
      configPath: tmp.path('punchgate.yaml'),
    };
  }

  async function sync(config: Config, opts: SyncCommandOptions) {
    const output = { code: -1, out: '', err: '' };
    output.code = await runSyncUsers(opts, {
      config,
      journal: journal!,
      now: () => Date.now(),
      out: { write: (s: string) => (output.out += s) },
      err: { write: (s: string) => (output.err += s) },
      scrub: (s) => s,
    });
    return output;
  }

  const people = () => {
    const cards = sim!.cards();
    return sim!
      .users()
      .filter((u) => !u.employeeNo.startsWith('5'))
      .map(
        (u) => `${u.employeeNo} ${u.name} [${cards.filter((c) => c.employeeNo === u.employeeNo).map((c) => c.cardNo)}]`,
      )
      .sort();
  };
  const writes = () => sim!.requests().filter((r) => WRITES.test(`${r.method} ${r.path}`));

  it('applies the roster exactly; a dry run and a second run write nothing', async () => {
    const { config, roster, configPath } = await setup();
    const before = people();
    const dry = await sync(config, { roster, dryRun: true });
    expect(dry.code, dry.out + dry.err).toBe(0);
    expect(dry.out).toContain('would add 1, update 2, remove 1');
    expect(writes()).toEqual([]);
    expect(people()).toEqual(before);

    // The site admin's run: a child process of the built CLI.
    const run = await runPunchgate(['--config', configPath, 'terminals', 'sync-users', '--roster', roster, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const t = JSON.parse(run.stdout).terminals[0];
    expect(t).toMatchObject({ terminal: 'reception', kind: 'hikvision', reached: true });
    expect(
      t.changes.map((c: { action: string; code: string; status: string }) => `${c.action} ${c.code} ${c.status}`),
    ).toEqual(['remove 1003 applied', 'update 1001 applied', 'update 1002 applied', 'add 1004 applied']);
    expect(t.counts).toMatchObject({ leftAlone: 35, protectedAdmins: 1 });
    expect(people()).toEqual(['1001 Ana One [111]', '1002 Ben [222]', '1004 New Hire [444]', '9001 Site Admin []']);
    expect(sim!.users().filter((u) => u.employeeNo.startsWith('5'))).toHaveLength(35);
    // A rename keeps what the site set on the device (its doors, validity, rights).
    expect(sim!.users().find((u) => u.employeeNo === '1001')?.doorRight).toBe('1,2');
    expect(sim!.users().find((u) => u.employeeNo === '9001')?.localUIRight).toBe(true);
    expect(run.stdout).not.toContain(PASSWORD);

    sim!.clearRequests();
    const again = await sync(config, { roster });
    expect(again.code).toBe(0);
    expect(again.out).toContain(
      '0 added, 0 updated, 0 removed; 3 unchanged, 35 not in the roster (left alone), 1 administrator(s) kept',
    );
    expect(writes()).toEqual([]);
    // The user search was paged: 40 people at 30 a page.
    expect(sim!.requests().filter((r) => r.path === '/ISAPI/AccessControl/UserInfo/Search').length).toBe(2);
  });

  it('gives the roster card as spelt (leading zeros kept, as printed on EM cards), and compares cards as numbers', async () => {
    const { config, roster } = await setup();
    // 1001's card 111 is on the terminal as "111": "0000000111" is the same card, nothing is written.
    writeFileSync(
      roster,
      ['code,name,card', '1001,Ana,0000000111', '1002,Ben,0000000222', '1004,New Hire,0012345678'].join('\n') + '\n',
    );
    const run = await sync(config, { roster });
    expect(run.code, run.out + run.err).toBe(0);
    const cards = (code: string) =>
      sim!
        .cards()
        .filter((c) => c.employeeNo === code)
        .map((c) => c.cardNo);
    expect(cards('1001')).toEqual(['111']);
    expect(cards('1002')).toEqual(['0000000222']);
    expect(cards('1004')).toEqual(['0012345678']);
    // The report says the card as written, zeros included (it said 12345678: a new-user trial).
    expect(run.out).toMatch(/\+ add +1004 +"New Hire" card 0012345678 \(new\): applied/);
    expect(run.out).toMatch(/~ update +1002 +card .* -> 0000000222: applied/);
    // Read back as applied, and a second run finds nothing to change.
    expect(run.out).not.toMatch(/not applied|failed/i);
    sim!.clearRequests();
    const again = await sync(config, { roster });
    expect(again.out).toContain('0 added, 0 updated, 0 removed; 3 unchanged');
    expect(writes()).toEqual([]);
  });

  it('a card the roster cannot name (a 7-byte UID past 4294967295) or a second card is never taken for the roster card: revoked with 0, replaced by the roster one', async () => {
    const { config, roster } = await setup();
    const c = await openClient(sim!, PASSWORD);
    // Enrolled at the terminal by hand: a MIFARE 7-byte UID in decimal, on Ana (1001 also holds 111).
    await c.users.setUpCard({ employeeNo: '1001', cardNo: '04123456789012' });
    await c.users.setUpCard({ employeeNo: '5000', cardNo: '98765432109876' });
    await c.http.close();
    // HR revokes 5000's lost badge (card 0) and gives Ana 111 as her only card; Ben (200 and 201) keeps 200 only.
    writeFileSync(roster, ['code,name,card', '1001,Ana,111', '1002,Ben,200', '5000,Stranger 0,0'].join('\n') + '\n');
    const run = await sync(config, { roster });
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toContain('0 added, 3 updated, 0 removed');
    const cards = (code: string) =>
      sim!
        .cards()
        .filter((x) => x.employeeNo === code)
        .map((x) => x.cardNo)
        .sort();
    expect(cards('1001')).toEqual(['111']);
    expect(cards('1002')).toEqual(['200']);
    expect(cards('5000')).toEqual([]);
    expect((await sync(config, { roster })).out).toContain('0 added, 0 updated, 0 removed; 3 unchanged');
  });

  it('a write failing midway: the report says what was applied, what failed, what was not attempted; a rerun finishes', async () => {
    const { config, roster } = await setup();
    // Two writes go through (the removal, the rename), then the device answers errors.
    sim!.setWriteFault({ after: 2, mode: 'error' });
    const broken = await sync(config, { roster, json: true });
    expect(broken.code).toBe(1);
    const changes = JSON.parse(broken.out).terminals[0].changes as {
      action: string;
      code: string;
      status: string;
      error?: string;
    }[];
    expect(changes.map((c) => `${c.action} ${c.code} ${c.status}`)).toEqual([
      'remove 1003 applied',
      'update 1001 applied',
      'update 1002 failed',
      'add 1004 failed',
    ]);
    expect(changes[2]!.error).toMatch(/refused by the terminal/);
    expect(people()).toEqual(['1001 Ana One [111]', '1002 Ben [200,201]', '9001 Site Admin []']);

    // The connection cut at the first write: that one is unknown until read back, the rest not attempted.
    sim!.setWriteFault({ after: 0, mode: 'drop' });
    const cut = await sync(config, { roster, json: true });
    expect(cut.code).toBe(75);
    const cutChanges = JSON.parse(cut.out).terminals[0].changes as {
      action: string;
      code: string;
      status: string;
      error?: string;
    }[];
    expect(cutChanges.map((c) => `${c.action} ${c.code} ${c.status}`)).toEqual([
      'update 1002 failed',
      'add 1004 not-attempted',
    ]);
    expect(cutChanges[0]!.error).toMatch(/no answer .*; the terminal does not hold it/);

    sim!.setWriteFault(null);
    const rerun = await sync(config, { roster });
    expect(rerun.code, rerun.out).toBe(0);
    expect(rerun.out).toContain('1 added, 1 updated, 0 removed');
    expect(people()).toEqual(['1001 Ana One [111]', '1002 Ben [222]', '1004 New Hire [444]', '9001 Site Admin []']);
  });

  it('a wrong password is reported plainly, never shown, and not tried again at once', async () => {
    const { config, roster } = await setup('The-device-passw0rd');
    const first = await sync(config, { roster });
    expect(first.code).toBe(75);
    expect(first.out).toContain('reception (hikvision http://127.0.0.1:');
    expect(first.out).toMatch(
      /NOT REACHED: reception refuses the password: put the right password in .*reception\.pass/,
    );
    expect(first.out + first.err).not.toContain(PASSWORD);
    expect(first.out + first.err).not.toContain('The-device-passw0rd');
    const refusals = sim!.auth().failures;
    expect(refusals).toBeGreaterThan(0);
    const second = await sync(config, { roster });
    expect(second.code).toBe(75);
    expect(second.out).toContain('refuses the password');
    expect(sim!.auth().failures).toBe(refusals);
    expect(sim!.auth().lockouts).toBe(0);
    expect(writes()).toEqual([]);
  });
});
