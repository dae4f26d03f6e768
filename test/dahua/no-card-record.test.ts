/**
 * Older Dahua firmware (recordUpdater.cgi) keeps a user only as an `AccessControlCard` record, and
 * every such record carries a card number. A user the roster gives no card must not be written with
 * their code as the card: with sequentially numbered badges, badge 1005 would open the door and punch
 * as employee 1005. Such a user fails with the reason and the fix; records written so by earlier
 * versions are shown with the card they really hold, so the card-clash check sees them.
 * The CGI simulator on loopback, a real journal file, sync-users and terminals users as children of
 * the built CLI.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/journal.js';
import { startDahuaSim, type DahuaSim, type SimUser } from '../../src/sim/dahua/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD } from './helpers.js';

describe('a Dahua user without a card on recordUpdater firmware', () => {
  let sim: DahuaSim | undefined;
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(async () => {
    await sim?.stop();
    tmp?.cleanup();
    sim = tmp = undefined;
  });

  async function setUp(users: SimUser[]) {
    sim = await startDahuaSim({ password: PASSWORD, userApi: 'recordUpdater', users });
    tmp = tempDir('punchgate-dahua-nocard-');
    writeFileSync(tmp.path('gate.pass'), PASSWORD + '\n');
    writeFileSync(
      tmp.path('punchgate.yaml'),
      stringify({
        site: 'plant-d',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [
          {
            name: 'gate',
            kind: 'dahua',
            host: '127.0.0.1',
            port: sim.port,
            passwordFile: tmp.path('gate.pass'),
            timeoutMs: 5000,
            timezone: 'UTC',
          },
        ],
      }),
    );
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-d', mode: 'owner' }).close();
    return tmp;
  }
  const people = () =>
    sim!
      .users()
      .map((u) => `${u.UserID} ${u.UserName} [${u.cards.join(',')}]`)
      .sort();

  it('is not written with their code as the card: FAILED with the reason and the fix', async () => {
    const t = await setUp([]);
    writeFileSync(t.path('roster.csv'), ['code,name,card', '1005,No Card,', '1006,Has Card,6006'].join('\n') + '\n');
    const run = await runPunchgate([
      '--config',
      t.path('punchgate.yaml'),
      'terminals',
      'sync-users',
      '--roster',
      t.path('roster.csv'),
      '--json',
    ]);
    const changes = JSON.parse(run.stdout).terminals[0].changes as { code: string; status: string; error?: string }[];
    expect(changes.map((c) => `${c.code} ${c.status}`)).toEqual(['1005 failed', '1006 applied']);
    const why = changes[0]!.error!;
    expect(why).toContain('no card');
    expect(why).toContain('give them a card in the HRMS');
    expect(why).toContain('AccessUser.cgi');
    // Nothing on the terminal opens for badge 1005.
    expect(people()).toEqual(['1006 Has Card [6006]']);
    expect(run.status).not.toBe(0);
  });

  it('a card taken away by the roster (`0`) is not replaced by the code: FAILED, the card stays', async () => {
    const t = await setUp([{ UserID: '1008', UserName: 'Card Lost', Authority: 2, cards: ['8008'] }]);
    writeFileSync(t.path('roster.csv'), ['code,name,card', '1008,Card Lost,0'].join('\n') + '\n');
    const run = await runPunchgate([
      '--config',
      t.path('punchgate.yaml'),
      'terminals',
      'sync-users',
      '--roster',
      t.path('roster.csv'),
    ]);
    expect(run.stdout).toMatch(/1008 .*FAILED: not written: user 1008 has no card/);
    expect(run.stdout).toContain('give them a card in the HRMS');
    expect(people()).toEqual(['1008 Card Lost [8008]']);
  });

  it('a record an earlier version wrote with the code as card: terminals users shows it, the clash check sees it', async () => {
    const t = await setUp([{ UserID: '1007', UserName: 'Old Write', Authority: 2, cards: ['1007'] }]);
    const listed = await runPunchgate(['--config', t.path('punchgate.yaml'), 'terminals', 'users', 'gate']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^1007 +Old Write +user +1007$/m);

    // Badge 1007 handed to a new hire: the terminal already opens for it as 1007, so it is not given.
    writeFileSync(t.path('roster.csv'), ['code,name,card', '1007,Old Write,', '2001,New Badge,1007'].join('\n') + '\n');
    const run = await runPunchgate([
      '--config',
      t.path('punchgate.yaml'),
      'terminals',
      'sync-users',
      '--roster',
      t.path('roster.csv'),
    ]);
    expect(run.stdout).toContain('card 1007 not given: this terminal holds it for user 1007');
    expect(people()).not.toContain('2001 New Badge [1007]');
  });
});
