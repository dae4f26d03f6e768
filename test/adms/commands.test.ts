import { afterEach, describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { backfillCommand, deleteUserCommand, updateUserCommand } from '../../src/sources/adms/index.js';
import { waitFor } from '../helpers/wait.js';
import { http, startReceiver, terminal } from './harness.js';
import { expectNoSecret } from '../helpers/secret.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';

describe('ADMS receiver: the command queue', () => {
  let r: Receiver | undefined;
  let sim: PushTerminalSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    await r?.stop();
    r = sim = undefined;
  });

  it('hands out queued commands once, records their results, and never queues an unconfirmed command twice', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const info = r.store.enqueue('lobby', 'INFO');
    expect(info.created).toBe(true);
    expect(r.store.enqueue('lobby', 'INFO')).toMatchObject({ created: false, command: { id: info.command.id } });
    const reboot = r.store.enqueue('lobby', 'REBOOT').command;
    const log = r.store.enqueue('lobby', 'LOG').command;
    const a = await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`);
    // Nothing after a REBOOT in the same answer.
    expect(a.body).toBe(`C:${info.command.id}:INFO\nC:${reboot.id}:REBOOT\n`);
    // Sent, not confirmed: not queued again, not handed out again at once.
    expect(r.store.enqueue('lobby', 'INFO').created).toBe(false);
    expect((await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`)).body).toBe(`C:${log.id}:LOG\n`);
    expect((await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`)).body).toBe('OK');
    const results = [
      `ID=${info.command.id}&Return=0&CMD=INFO`,
      '~DeviceName=SpeedFace-V5L',
      'FWVersion=ZAM180-NF-Ver1.1.17',
      'UserCount=12',
      'TransactionCount=4120',
      '~ComKey=808080',
      `ID=${log.id}&Return=-1002&CMD=LOG`,
      'ID=999999&Return=0&CMD=DATA',
    ].join('\n');
    expect(await http(r.url, 'POST', `/iclock/devicecmd?SN=${SN}`, results)).toEqual({ status: 200, body: 'OK' });
    const list = r.store.commands('lobby');
    expect(list.map((c) => [c.command, c.state, c.returnCode])).toEqual([
      ['LOG', 'failed', -1002],
      ['REBOOT', 'sent', null],
      ['INFO', 'done', 0],
    ]);
    const done = list.find((c) => c.command === 'INFO')!;
    expect(done.result).toContain('FWVersion=ZAM180-NF-Ver1.1.17');
    expectNoSecret(done.result ?? '', '808080');
    // Confirmed: the same command may be queued again.
    expect(r.store.enqueue('lobby', 'INFO').created).toBe(true);
    await waitFor(
      () => r!.journal.terminals.get('lobby')?.firmware === 'ZAM180-NF-Ver1.1.17',
      20_000,
      'firmware from INFO',
    );
  });

  it('a simulated terminal applies user commands and a backfill; confirmed user commands update the kept users', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    sim = startPushTerminalSim({
      server: r.url,
      serial: SN,
      users: [
        { pin: '1001', name: 'Jane', privilege: 0, card: '' },
        { pin: '1002', name: 'Leaver', privilege: 0, card: '' },
      ],
      punches: 40,
      delayMs: 30,
      errorDelayMs: 30,
      timeMode: 'sequence',
      sequenceStart: '2026-10-01 08:00:00',
    });
    await waitFor(() => sim!.pending() === 0, 10_000, 'first upload');
    await waitFor(() => r!.store.users('lobby', SN).length === 2, 20_000, 'users from OPERLOG');
    r.store.enqueue('lobby', updateUserCommand({ pin: '1003', name: 'New Hire', card: '4521234' }));
    r.store.enqueue('lobby', deleteUserCommand('1002'));
    r.store.enqueue('lobby', backfillCommand('2026-10-01 08:00:10', '2026-10-01 08:00:19'));
    r.store.enqueue('lobby', 'CLEAR PHOTO');
    await waitFor(
      () => r!.store.commands('lobby').every((c) => c.state === 'done' || c.state === 'failed'),
      10_000,
      'results',
    );
    expect(sim.users().map((u) => u.pin)).toEqual(['1001', '1003']);
    expect(r.store.users('lobby', SN).map((u) => [u.pin, u.name, u.card])).toEqual([
      ['1001', 'Jane', ''],
      ['1003', 'New Hire', '4521234'],
    ]);
    expect(r.store.commands('lobby').map((c) => [c.command.split('\t')[0], c.state])).toEqual([
      ['CLEAR PHOTO', 'failed'],
      ['DATA QUERY ATTLOG StartTime=2026-10-01 08:00:10', 'done'],
      ['DATA DELETE USERINFO PIN=1002', 'done'],
      ['DATA UPDATE USERINFO PIN=1003', 'done'],
    ]);
    // The backfill re-uploads ten punches: the journal's dedup absorbs them.
    await waitFor(() => sim!.stats().intentionalResends === 10, 20_000, 'backfill uploaded');
    expect(r.journal.counts().pending).toBe(40);
    expect(sim.stats().resentAfterOk).toBe(0);
  });
});
