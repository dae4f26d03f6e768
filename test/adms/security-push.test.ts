import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { PushStore } from '../../src/journal/push-store.js';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { attlog, http, startReceiver, terminal } from './harness.js';
import { expectNoSecret } from '../helpers/secret.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CRJP230860129';

/** Rows as Security PUSH firmware sends them (fields and order of captured uploads; the last line without LF). */
const V3L_PASS =
  'time=2026-09-28 11:40:45\tpin=41235478\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=1\tindex=13355\tsitecode=0\tlinkid=0\tmaskflag=0\ttemperature=0\tconvtemperature=0';
const UNREGISTERED_CARD =
  'time=2026-09-28 11:45:56\tpin=0\tcardno=0\teventaddr=1\tevent=27\tinoutstatus=1\tverifytype=1\tindex=13357\tsitecode=0\tlinkid=0\tmaskflag=0\ttemperature=0\tconvtemperature=0';
const V5L_FACE =
  'time=2026-09-15 15:32:41\tpin=2\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=0\tverifytype=15\tindex=114\tsitecode=0\tlinkid=0\tmaskflag=255\ttemperature=255\tconvtemperature=255';
const V5L_FINGER =
  'time=2026-09-15 15:33:02\tpin=7\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=0\tverifytype=1\tindex=115\tsitecode=0\tlinkid=0\tmaskflag=255\ttemperature=255\tconvtemperature=255';
const CLOCK_UNSET =
  'time=1971--10--29 -23:-27:-54\tpin=5\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=0\tverifytype=15\tindex=3\tsitecode=0\tlinkid=0';
const REGISTRY_BODY =
  'DeviceType=acc,~DeviceName=SpeedFace-V5L,FirmVer=ZAM180-NF-Ver1.1.17,PushVersion=3.1.2,~MaxUserCount=10000,~MaxAttLogCount=100000,~MaxFingerCount=6000,MaxPackageSize=2048000,LockCount=1,ReaderCount=2,CommKey=123456';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const keyValues = (body: string) =>
  new Map(
    body
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );

/** Registers as the document's flow does: handshake, registry, push; returns the cookie the device then sends. */
async function register(r: Receiver, serial = SN): Promise<{ cookie: string; code: string; session: string }> {
  const hello = await http(
    r.url,
    'GET',
    `/iclock/cdata?SN=${serial}&options=all&pushver=3.1.2&DeviceType=acc`,
    undefined,
    {
      Connection: 'starting',
      Accept: 'application/push',
    },
  );
  expect(hello).toEqual({ status: 200, body: 'OK' });
  const reg = await http(r.url, 'POST', `/iclock/registry?SN=${serial}`, REGISTRY_BODY);
  expect(reg.status).toBe(200);
  const code = /^RegistryCode=([0-9a-f]{16})$/.exec(reg.body)?.[1];
  expect(code).toBeDefined();
  const push = await http(r.url, 'POST', `/iclock/push?SN=${serial}`, '');
  const config = keyValues(push.body);
  expect(config.get('Realtime')).toBe('1');
  expect(config.get('TransTables')).toBe('User Transaction');
  const session = config.get('SessionID')!;
  expect(session).toMatch(/^[0-9a-f]{32}$/);
  return { cookie: `token=${md5(`${code}${serial}${session}`)}`, code: code!, session };
}

describe('Security PUSH (rtlog terminals) through the receiver', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('registers, configures and then answers the handshake registry=ok with the same code and session', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const { cookie, code, session } = await register(r);
    // The next start of the device (DeviceType= or not): registered, the configuration at once.
    for (const q of ['&DeviceType=acc', '']) {
      const again = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=3.1.2${q}`);
      const lines = again.body.split('\n');
      expect(lines.slice(0, 2)).toEqual(['registry=ok', `RegistryCode=${code}`]);
      expect(keyValues(again.body).get('SessionID')).toBe(session);
      expect(keyValues(again.body).get('Realtime')).toBe('1');
    }
    // The facts it sent are kept (model, firmware, capacities), never its comm key.
    const reg = r.store.registration('gate', SN)!;
    expect(reg).toMatchObject({ protocol: 'security', registryCode: code, sessionId: session });
    expect(reg.facts).toMatchObject({
      DeviceName: 'SpeedFace-V5L',
      FirmVer: 'ZAM180-NF-Ver1.1.17',
      MaxUserCount: '10000',
    });
    expectNoSecret(JSON.stringify(reg.facts), '123456');
    // getrequest, devicecmd and ping with the cookie.
    expect(await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`, undefined, { Cookie: cookie })).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(await http(r.url, 'GET', `/iclock/ping?SN=${SN}`, undefined, { Cookie: cookie })).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(r.log.lines().filter((l) => String(l.msg).includes('token'))).toEqual([]);
    // A restart of punchgate keeps the registration (the device's token stays valid).
    const dir = r.tmp;
    await r.stop(true);
    r = await startReceiver({ terminals: [terminal('gate', SN)], dir });
    const after = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=3.1.2`);
    expect(after.body.startsWith(`registry=ok\nRegistryCode=${code}\n`)).toBe(true);
  });

  it('journals passes as punches with the wall-clock time, counts door events and refusals, quarantines an unset clock', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const { cookie } = await register(r);
    const body = [V3L_PASS, UNREGISTERED_CARD, V5L_FACE, V5L_FINGER, CLOCK_UNSET].join('\n');
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, body, { Cookie: cookie });
    expect(a).toEqual({ status: 200, body: 'OK' });
    const rows = r.journal.queries.list();
    expect(rows.map((p) => [p.biometricCode, p.logTime, p.verifyType, p.punchState, p.state])).toEqual([
      // In log-time order.
      ['5', '1971--10--29 -23:-27:-54', 15, 0, 'quarantined'],
      ['2', '2026-09-15 15:32:41', 15, 0, 'pending'],
      ['7', '2026-09-15 15:33:02', 1, 0, 'pending'],
      ['41235478', '2026-09-28 11:40:45', 1, 0, 'pending'],
    ]);
    expect(rows.every((p) => p.device === SN && p.terminal === 'gate')).toBe(true);
    expect(r.store.pushEvents()).toEqual([expect.objectContaining({ table: 'rtlog', code: '27', count: 1 })]);
    // Sent again (an answer lost): OK, journalled once.
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, body, { Cookie: cookie })).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(r.journal.queries.list()).toHaveLength(4);
    expect(r.store.keptUploads()).toEqual([]);
  });

  it('counts door states, keeps users of tabledata, counts photos, keeps unread tables raw; answers <table>=<count>', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const { cookie } = await register(r);
    const state = 'time=2026-09-28 11:40:50\tsensor=01\trelay=00\talarm=0000000000000000\tdoor=01';
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtstate`, state, { Cookie: cookie })).toEqual({
      status: 200,
      body: 'OK',
    });
    const users = attlog([
      'user uid=1\tcardno=\tpin=1001\tpassword=4321\tgroup=1\tstarttime=0\tendtime=0\tname=Ana Lima\tprivilege=0\tdisable=0\tverify=0',
      'user uid=2\tcardno=0004521234\tpin=1002\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Ben\tprivilege=14\tdisable=0\tverify=0',
    ]);
    expect(
      await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=tabledata&tablename=user&count=2`, users, {
        Cookie: cookie,
      }),
    ).toEqual({ status: 200, body: 'user=2' });
    expect(r.store.users('gate', SN).map((u) => [u.pin, u.name, u.card, u.privilege])).toEqual([
      ['1001', 'Ana Lima', '', 0],
      ['1002', 'Ben', '0004521234', 14],
    ]);
    const photo = `biophoto pin=1001\tfilename=1001.jpg\ttype=9\tsize=6\tcontent=${'QUJDREVG'.repeat(500)}`;
    expect(
      await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=tabledata&tablename=biophoto&count=1`, photo),
    ).toEqual({ status: 200, body: 'biophoto=1' });
    const auth = 'userauthorize pin=1001\tauthorizetimezoneid=1\tauthorizedoorid=1';
    expect(
      await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=tabledata&tablename=userauthorize&count=1`, auth),
    ).toEqual({ status: 200, body: 'userauthorize=1' });
    expect(r.journal.queries.list()).toEqual([]);
    expect(r.store.pushEvents().map((e) => [e.table, e.code, e.count])).toEqual(
      expect.arrayContaining([
        ['rtstate', 'state', 1],
        ['tabledata:biophoto', 'photo', 1],
      ]),
    );
    // The user's terminal password and the photo are nowhere in the journal.
    r.journal.db.pragma('wal_checkpoint(TRUNCATE)');
    const dump =
      JSON.stringify(r.journal.db.prepare('SELECT * FROM push_kept').all()) + JSON.stringify(r.store.pushEvents());
    expectNoSecret(dump, '4321');
    expect(dump).not.toContain('QUJDREVG');
    expect(r.store.keptUploads().map((k) => [k.table, k.lines, k.body])).toEqual([
      ['tabledata:userauthorize', 1, auth],
    ]);
  });

  it('keeps raw what it cannot read, journals the rest of the batch, and reparses once the terminal says which events are passes', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const { cookie } = await register(r);
    const strange =
      'time=2026-09-28 12:00:00\tpin=1003\tcardno=0\teventaddr=1\tevent=4102\tinoutstatus=0\tverifytype=15';
    const body = [
      V3L_PASS,
      'time=2026-09-28 11:50:00\tpin=1001\tverifytype=1', // no event
      'complete garbage',
      strange,
      'time=2026-09-28 12:01:00\tpin=10\u001b03\tevent=0', // control character in the pin
      V5L_FACE,
    ].join('\r\n');
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, body, { Cookie: cookie })).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['2', '41235478']);
    const kept = r.store.keptUploads('gate');
    expect(kept.map((k) => [k.table, k.lines])).toEqual([
      ['rtlog', 3],
      ['rtlog', 1],
    ]);
    expect(kept[1]!.body).toBe(strange);
    expect(kept[1]!.reason).toContain('event 4102');
    expect(r.log.lines().some((l) => l.serial === SN && l.table === 'rtlog' && l.line === 2)).toBe(true);
    // An admin who learns event 4102 is this firmware's pass says so, and reparses.
    const store = new PushStore(r.journal.db, r.journal, { now: () => Date.now() });
    const result = reparseKept(store, terminal('gate', SN, { punchEvents: [0, 3, 4102] }));
    expect(result).toMatchObject({ uploads: 2, added: 1, duplicates: 0, stillKept: 3 });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['2', '41235478', '1003']);
    expect(store.keptUploads('gate').map((k) => k.lines)).toEqual([3]);
    expect(store.keptCounts()).toEqual([
      expect.objectContaining({ table: 'rtlog', uploads: 2, lines: 4, reparsed: 1, held: 1 }),
    ]);
    // Again: nothing more, nothing twice.
    expect(reparseKept(store, terminal('gate', SN, { punchEvents: [0, 3, 4102] }))).toMatchObject({ added: 0 });
  });

  it('keeps a table it does not read raw, bounded by size (oldest first, counted)', async () => {
    r = await startReceiver({
      terminals: [terminal('gate', SN)],
      adms: { keptUploads: { maxBytes: 64 * 1024, maxAgeDays: 1 } },
    });
    const line = (i: number) => `mystery id=${i}\tdata=${'x'.repeat(1000)}`;
    for (let i = 0; i < 100; i++)
      expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=mystery`, line(i))).toEqual({
        status: 200,
        body: 'OK',
      });
    const kept = r.store.keptUploads('gate');
    expect(kept.reduce((n, k) => n + k.bytes, 0)).toBeLessThanOrEqual(64 * 1024);
    expect(kept.at(-1)!.body).toBe(line(99));
    expect(kept[0]!.body).toBe(line(100 - kept.length));
    const [count] = r.store.keptCounts();
    expect(count).toMatchObject({ table: 'mystery', uploads: 100, held: kept.length, dropped: 100 - kept.length });
    // Older than the age bound: dropped at the next keep.
    expect(r.store.pruneKept({ maxBytes: 64 * 1024, maxAgeMs: 86_400_000 }, Date.now() + 2 * 86_400_000)).toBe(
      kept.length,
    );
  });

  it('says so in the log when a registry body or a cookie does not parse, and keeps serving the terminal', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const reg = await http(r.url, 'POST', `/iclock/registry?SN=${SN}`, '\u0001\u0002 nonsense');
    expect(reg.body).toMatch(/^RegistryCode=[0-9a-f]{16}$/);
    expect(r.log.text()).toContain(`registry body from terminal SN=${SN} (gate) could not be read`);
    const bad = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, V3L_PASS, { Cookie: 'token' });
    expect(bad).toEqual({ status: 200, body: 'OK' });
    const forged = await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`, undefined, { Cookie: `token=${md5('x')}` });
    expect(forged.status).toBe(200);
    const lines = r.log.lines().filter((l) => l.serial === SN && /Cookie|token/.test(String(l.msg)));
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringContaining(`terminal SN=${SN} (gate) sent a Cookie that does not parse`),
      expect.stringContaining(`terminal SN=${SN} (gate) sent a token that does not match its registration`),
    ]);
    expect(r.journal.queries.list()).toHaveLength(1);
  });

  it('refuses an rtlog upload from a serial not in the config, as any unknown serial (no OK)', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=STRANGER01&table=rtlog`, V3L_PASS);
    expect(a.status).toBe(403);
    expect(a.body).not.toMatch(/^OK/);
    expect((await http(r.url, 'POST', `/iclock/registry?SN=STRANGER01`, REGISTRY_BODY)).status).toBe(403);
    expect(r.journal.queries.list()).toEqual([]);
  });
});

describe('what real attendance-protocol firmware sends, through the receiver', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('takes Stamp=9999 on every upload, 11- and 8-field lines, no Content-Type and Connection: close', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7233461467')] });
    const sn = 'CQZ7233461467';
    const eleven = '1\t2023-11-01 11:34:17\t0\t1\t0\t0\t0\t0\t36.5\t0\t+0000\t17';
    const eight = '4x\t2023-11-03 09:11:12\t255\t1\t\t0\t0\t0';
    for (const body of [eleven, eight])
      expect(
        await http(r.url, 'POST', `/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=9999`, body + '\n', {
          Connection: 'close',
        }),
      ).toEqual({ status: 200, body: 'OK:1' });
    expect(r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.punchState])).toEqual([
      ['1', '2023-11-01 11:34:17', 0],
      ['4x', '2023-11-03 09:11:12', 255],
    ]);
  });

  it('gives PushSDK 3.x firmware the bit-string TransFlag and 2.x the string form', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const three = await http(
      r.url,
      'GET',
      `/iclock/cdata?SN=CQZ1&options=all&pushver=3.0.1&language=83&pushcommkey=4a95`,
    );
    expect(three.body).toContain('TransFlag=1101100000\n');
    expect(three.body.startsWith('GET OPTION FROM: CQZ1\n')).toBe(true);
    const two = await http(r.url, 'GET', `/iclock/cdata?SN=CQZ1&options=all&pushver=2.2.14`);
    expect(two.body).toContain('TransFlag=TransData AttLog\tOpLog\tEnrollUser\tChgUser\n');
    // DeviceType=att: the attendance protocol, even after the device called registry.
    await http(r.url, 'POST', `/iclock/registry?SN=CQZ1`, 'DeviceType=att,~DeviceName=MB10-VL');
    const att = await http(r.url, 'GET', `/iclock/cdata?SN=CQZ1&options=all&pushver=3.0.1&DeviceType=att`);
    expect(att.body.startsWith('GET OPTION FROM: CQZ1\n')).toBe(true);
  });

  it('reads OPERLOG with USER, FP and OPLOG lines, counts photos, keeps unknown record types raw', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const body = attlog([
      'USER PIN=1001\tName=Jane\tPri=0\tPasswd=99\tCard=\tGrp=1',
      `FP PIN=1001\tFID=6\tSize=1184\tValid=1\tTMP=${'TSNTUzIx'.repeat(200)}`,
      'OPLOG 4\t0\t2026-11-01 08:00:00\t0\t0\t0\t0',
      'WEIRD PIN=1001\tPasswd=77\tX=1',
    ]);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=CQZ1&table=OPERLOG&Stamp=9999`, body)).toEqual({
      status: 200,
      body: 'OK:4',
    });
    expect(r.store.pushEvents().map((e) => [e.code, e.count])).toEqual(
      expect.arrayContaining([
        ['FP', 1],
        ['OPLOG', 1],
      ]),
    );
    expect(r.store.keptUploads().map((k) => k.body)).toEqual(['WEIRD PIN=1001\tPasswd=***\tX=1']);
    const photo = Buffer.concat([
      Buffer.from('PIN=20261101080000-1001.jpg\nSN=CQZ1\nsize=2000\nCMD=uploadphoto\0'),
      Buffer.alloc(2000, 0xff),
    ]);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=CQZ1&table=ATTPHOTO&Stamp=9999`, photo)).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(r.store.pushEvents().find((e) => e.table === 'ATTPHOTO')).toMatchObject({ code: 'photo', count: 1 });
  });

  it('settles a command whose result is spread over lines (ID=3\\nReturn=0\\nCMD=INFO)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const { command } = r.store.enqueue('lobby', 'INFO');
    const { command: second } = r.store.enqueue('lobby', 'CHECK');
    expect((await http(r.url, 'GET', `/iclock/getrequest?SN=CQZ1`)).body).toBe(
      `C:${command.id}:INFO\nC:${second.id}:CHECK\n`,
    );
    const results = `ID=${command.id}\nReturn=0\nCMD=INFO\n~DeviceName=MB10-VL\nFWVersion=Ver 6.60\nUserCount=12\nID=${second.id}\r\nReturn=-1002\r\nCMD=CHECK\r\n`;
    expect(await http(r.url, 'POST', `/iclock/devicecmd?SN=CQZ1`, results)).toEqual({ status: 200, body: 'OK' });
    const byId = new Map(r.store.commands('lobby').map((c) => [c.id, c]));
    expect(byId.get(command.id)).toMatchObject({ state: 'done', returnCode: 0 });
    expect(byId.get(command.id)!.result).toContain('FWVersion=Ver 6.60');
    expect(byId.get(second.id)).toMatchObject({ state: 'failed', returnCode: -1002 });
  });
});
