import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';

describe('ADMS receiver: the protocol', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('answers the option block with the stamps of the last durable upload, and OK:n after the commit', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const first = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(first.status).toBe(200);
    expect(first.body.split('\n')).toEqual(
      expect.arrayContaining([
        `GET OPTION FROM: ${SN}`,
        'ATTLOGStamp=0',
        'OPERLOGStamp=0',
        'Delay=10',
        'ErrorDelay=30',
        'TimeZone=0',
        'Realtime=1',
        'TransFlag=TransData AttLog\tOpLog\tEnrollUser\tChgUser',
      ]),
    );
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9001`,
      attlog(['1001\t2026-11-01 08:00:00\t0\t1\t0\t\t\t0\t0\t', '4x\t2026-11-01 08:01:00\t1\t15']),
    );
    expect(up).toEqual({ status: 200, body: 'OK:2' });
    const rows = r.journal.queries.list();
    expect(rows.map((p) => [p.terminal, p.device, p.biometricCode, p.logTime, p.punchState, p.verifyType])).toEqual([
      ['lobby', SN, '1001', '2026-11-01 08:00:00', 0, 1],
      ['lobby', SN, '4x', '2026-11-01 08:01:00', 1, 15],
    ]);
    expect(r.woken()).toBe(2);
    const again = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(again.body).toContain('ATTLOGStamp=9001\n');
    // The same batch again (an answer lost on the way): OK, stored once.
    const resent = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9001`,
      attlog(['1001\t2026-11-01 08:00:00\t0\t1', '4x\t2026-11-01 08:01:00\t1\t15']),
    );
    expect(resent).toEqual({ status: 200, body: 'OK:2' });
    expect(r.journal.counts().pending).toBe(2);
  });

  it('gives older firmware (no pushver) the legacy stamp names and the bit-string TransFlag', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN, { timezone: 'Asia/Kolkata' })] });
    const a = await http(r.url, 'GET', `/iclock/cdata.aspx?SN=${SN}&options=all`);
    expect(a.body).toContain('Stamp=0\nOpStamp=0\n');
    expect(a.body).toContain('TransFlag=1101100000\n');
    expect(a.body).toContain('TimeZone=330\n'); // India: +5:30 in minutes
  });

  it('takes the protocol path after a server address with a path of its own: /iclock/iclock/cdata, /attendance/iclock/cdata', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    // A real unit whose server address was typed ending in /iclock (a published server's test).
    const doubled = await http(
      r.url,
      'POST',
      `/iclock/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`,
      attlog(['603\t2026-08-23 07:12:04\t0\t1']),
    );
    expect(doubled).toEqual({ status: 200, body: 'OK:1' });
    const prefixed = await http(r.url, 'GET', `/attendance/iclock/cdata?SN=${SN}&options=all`);
    expect(prefixed.status).toBe(200);
    expect(prefixed.body).toContain('Stamp=');
    expect((await http(r.url, 'GET', `/iclock/nothing?SN=${SN}`)).status).toBe(404);
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['603']);
  });

  it('keeps the good lines of a batch with malformed ones, reports each bad line with the serial and its number', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const body = attlog([
      '1001\t2026-11-01 08:00:00\t0\t1',
      '1002 2026-11-01 08:00:01 0 1', // no tab
      '1003\t2026-13-01 08:00:02\t0\t1', // bad date
      '\t2026-11-01 08:00:03\t0\t1', // empty PIN
      '10\u001b04\t2026-11-01 08:00:04\t0\t1', // control character
      '1005\t2026-11-01 08:00:05\t\t', // empty status and verify: kept
    ]);
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=5`, body);
    expect(a).toEqual({ status: 200, body: 'OK:2' });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['1001', '1005']);
    const bad = r.log.lines().filter((l) => l.msg === 'malformed ATTLOG line kept raw in the journal');
    expect(bad.map((l) => [l.serial, l.line])).toEqual([
      [SN, 2],
      [SN, 3],
      [SN, 4],
      [SN, 5],
    ]);
    expect(bad[3]!.text).toBe('10\\x1b04\\x092026-11-01 08:00:04\\x090\\x091');
    const state = r.store.pushTerminal('lobby')!;
    expect(state.malformed).toBe(4);
    expect(state.lastMalformed).toBe('line 2: no tab between the fields');
    expect(state.received).toBe(2);
    // Nothing answered OK is dropped in silence: the four lines are kept raw, for a later reparse.
    const kept = r.store.keptUploads('lobby');
    expect(kept.map((k) => [k.table, k.lines, k.reason])).toEqual([['ATTLOG', 4, 'line 2: no tab between the fields']]);
    expect(kept[0]!.body.split('\n')).toEqual([
      '1002 2026-11-01 08:00:01 0 1',
      '1003\t2026-13-01 08:00:02\t0\t1',
      '\t2026-11-01 08:00:03\t0\t1',
      '10\u001b04\t2026-11-01 08:00:04\t0\t1',
    ]);
  });

  it('keeps user records of OPERLOG (never passwords or templates) and answers OK:n', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const body = attlog([
      'USER PIN=1001\tName=Jane Doe\tPri=14\tPasswd=4321\tCard=0004521234\tGrp=1\tTZ=0000000100000000\tVerify=0',
      'USER PIN=1002\tName=Ben\tPri=0\tPasswd=\tCard=\tGrp=1',
      'FP PIN=1001\tFID=6\tSize=1184\tValid=1\tTMP=TSNTUzIxAAAEUlYECAUHCc7QAAAcU2kBAAAAhH8xVFIxAE4PxwBUAH9sSQ==',
      'OPLOG 4\t0\t2026-11-01 08:00:00\t0\t0\t0\t0',
      'USER PIN=\tName=nobody',
    ]);
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=77`, body);
    expect(a).toEqual({ status: 200, body: 'OK:5' });
    expect(r.store.users('lobby', SN)).toEqual([
      expect.objectContaining({ pin: '1001', name: 'Jane Doe', card: '0004521234', privilege: 14 }),
      expect.objectContaining({ pin: '1002', name: 'Ben', card: '', privilege: 0 }),
    ]);
    const options = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(options.body).toContain('OPERLOGStamp=77\n');
    r.journal.db.pragma('wal_checkpoint(TRUNCATE)');
    const file = readFileSync(r.tmp.path('journal.db'));
    expect(file.includes('4321')).toBe(false);
    expect(file.includes('TSNTUzIxAAAEUlYECAUHCc7Q')).toBe(false);
  });

  it('answers photos and other tables OK and keeps nothing of them', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const photo = Buffer.concat([
      Buffer.from('PIN=1001\nSN=x\nsize=9000\nCMD=uploadphoto\0'),
      Buffer.alloc(9000, 0x5a),
    ]);
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTPHOTO&Stamp=3`, photo);
    expect(a).toEqual({ status: 200, body: 'OK' });
    const b = await http(r.url, 'POST', `/iclock/fdata?SN=${SN}&table=ATTPHOTO`, photo);
    expect(b).toEqual({ status: 200, body: 'OK' });
    r.journal.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(r.tmp.path('journal.db')).includes(Buffer.alloc(64, 0x5a))).toBe(false);
    expect(r.journal.queries.list()).toEqual([]);
    // Its stamp is kept, so the terminal does not send the photos again at each start.
    const options = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(options.body).toContain('ATTPHOTOStamp=3\n');
  });

  it('answers ping, registry and push for newer firmware, and nothing but the protocol', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    expect(await http(r.url, 'GET', `/iclock/ping?SN=${SN}`)).toEqual({ status: 200, body: 'OK' });
    const reg = await http(r.url, 'POST', `/iclock/registry?SN=${SN}`, 'DeviceType=att,~DeviceName=SpeedFace');
    expect(reg.body).toMatch(/^RegistryCode=[0-9a-f]{16}$/);
    const push = await http(r.url, 'GET', `/iclock/push?SN=${SN}`);
    expect(push.body).toContain('RequestDelay=10\n');
    expect(await http(r.url, 'GET', '/')).toEqual({ status: 404, body: '' });
    expect(await http(r.url, 'GET', '/iclock/../../etc/passwd')).toEqual({ status: 404, body: '' });
    expect(await http(r.url, 'GET', '/metrics')).toEqual({ status: 404, body: '' });
    expect((await http(r.url, 'POST', `/iclock/getrequest?SN=${SN}`, 'x')).status).toBe(405);
    expect((await http(r.url, 'DELETE' as 'GET', `/iclock/cdata?SN=${SN}`)).status).toBe(405);
    expect((await http(r.url, 'GET', '/iclock/getrequest')).status).toBe(400);
    expect((await http(r.url, 'GET', '/iclock/getrequest?SN=%0a%1b')).status).toBe(400);
  });

  it('shows last contact, address, firmware and counts of INFO once flushed', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}&INFO=Ver%208.0.4.2-20191206,12,10,4120,192.168.1.201,10,7`);
    await waitFor(
      () => r!.journal.terminals.get('lobby')?.firmware === 'Ver 8.0.4.2-20191206',
      20_000,
      'ledger written',
    );
    const t = r.journal.terminals.get('lobby')!;
    expect(t).toMatchObject({ online: true, serial: SN, users: 12, records: 4120, offlineSince: null });
    expect(r.store.pushTerminal('lobby')).toMatchObject({ address: '127.0.0.1', pushVersion: '2.4.1' });
  });
});
