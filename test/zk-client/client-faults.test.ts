import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkClient, ZkConnectionError, ZkTimeoutError } from '../../src/sources/zk/client/index.js';
import { CMD, EF, encodeRealtimeTcp, type ZkRealtimeAttlog } from '../../src/sources/zk/protocol/index.js';
import { reply } from './fake-terminal.js';
import { dataset40, makeAttendances, setup } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('ZkClient faults', () => {
  it('a dropped reply gives ZkTimeoutError, tears down, and the next attempt works', async () => {
    let drop = true;
    const t = await setup(
      {
        transport: 'tcp',
        hook: (req) => {
          if (req.command === CMD.GET_TIME && drop) {
            drop = false;
            return [];
          }
        },
      },
      { timeoutMs: 200 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    const started = Date.now();
    const err = await t.zk.getTime().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkTimeoutError);
    expect((err as Error).message).toBe(
      `no reply from 127.0.0.1:${t.port} to GET_TIME(201) within 200 ms; connection closed`,
    );
    // Not a hang; room for a loaded CI box.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(t.zk.connected).toBe(false);
    await t.zk.connect();
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
  });

  it('a timeout in the middle of a chunked download rejects with ZkTimeoutError', async () => {
    const t = await setup(
      {
        transport: 'tcp',
        attendance: dataset40(makeAttendances(4000)),
        hook: (req, replies) => (req.command === CMD.DATA_RDY ? replies.slice(0, -1) : undefined), // no trailing ACK
      },
      { timeoutMs: 200 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    await expect(t.zk.getAttendances()).rejects.toBeInstanceOf(ZkTimeoutError);
  });

  it('a late duplicate reply and extra trailing ACKs are not taken for the next reply', async () => {
    const t = await setup({
      transport: 'tcp',
      seed: 5,
      attendance: dataset40(makeAttendances(2500)),
      hook: (req, replies, conn) => {
        if (req.command === CMD.GET_TIME) {
          // the same reply again, arriving while the next request waits
          conn.sendLater(30, [replies[0]!]);
        }
        if (req.command === CMD.GET_FREE_SIZES) {
          conn.sendLater(100, replies);
          return [];
        }
        if (req.command === CMD.DATA_RDY) {
          // a separate trailing ACK, sent twice, and a stray packet with a foreign reply id
          conn.sendLater(5, [reply(req, CMD.ACK_OK, conn.sessionId)]);
          conn.send([reply({ ...req, replyId: (req.replyId + 7) & 0xffff }, CMD.ACK_OK, conn.sessionId)]);
        }
        if (req.command === CMD.DATA_WRRQ) conn.sendLater(5, [reply(req, CMD.ACK_OK, conn.sessionId)]);
      },
    });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
    const info = await t.zk.getInfo();
    expect(info.recordCapacity).toBe(100_000);
    expect((await t.zk.getAttendances()).length).toBe(2500);
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
  });

  it('an unsolicited event while a command waits is not its reply', async () => {
    const t = await setup(
      {
        transport: 'tcp',
        hook: (req, replies, conn) => {
          if (req.command === CMD.GET_TIME) {
            conn.send([reply({ ...req, replyId: 0 }, CMD.REG_EVENT, EF.ATTLOG).subarray(0, 8), replies[0]!]);
            return [];
          }
        },
      },
      { initialReplyId: 0xffff },
    );
    cleanup = t.cleanup;
    await t.zk.connect(); // CONNECT 65535, then GET_TIME gets reply id 0 like the event
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
  });

  it('reply ids wrap from 65535 to 0 without trouble', async () => {
    const t = await setup(
      { transport: 'tcp', attendance: dataset40(makeAttendances(3000)) },
      { initialReplyId: 65530, chunkSize: 20_000 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    expect((await t.zk.getAttendances()).length).toBe(3000);
    for (let i = 0; i < 4; i++) expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
    const ids = t.terminal.requests.map((r) => r.replyId);
    expect(ids.slice(0, 8)).toEqual([65530, 65531, 65532, 65533, 65534, 65535, 0, 1]);
    expect(ids.length).toBeGreaterThan(10);
  });

  it('runs one operation at a time when called concurrently', async () => {
    const records = makeAttendances(3000);
    const t = await setup({ transport: 'tcp', attendance: dataset40(records), seed: 13 }, { chunkSize: 30_000 });
    cleanup = t.cleanup;
    await t.zk.connect();
    const [a, info, time, b] = await Promise.all([
      t.zk.getAttendances(),
      t.zk.getInfo(),
      t.zk.getTime(),
      t.zk.getAttendances(),
    ]);
    expect(a).toEqual(records);
    expect(b).toEqual(records);
    expect(info.users).toBe(2);
    expect(time).toBe('2018-06-25 17:41:05');
  });

  it('delivers real-time events, acknowledges them, survives malformed ones, and reports the end', async () => {
    const t = await setup({ transport: 'tcp', seed: 17 });
    cleanup = t.cleanup;
    await t.zk.connect();
    const events: ZkRealtimeAttlog[] = [];
    let ended: Error | null = null;
    await t.zk.subscribeRealtime(
      (e) => events.push(e),
      (err) => (ended = err),
    );
    const e1 = { userId: 'A-000000000000000000000001', verifyType: 1, state: 0, logTime: '2024-03-31 02:30:00' };
    const e2 = { userId: '1005', verifyType: 2, state: 1, logTime: '2024-03-31 02:31:00' };
    t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeTcp({ ...e1, userId: e1.userId.slice(0, 24) }));
    t.terminal.pushEvent(EF.ATTLOG, Buffer.alloc(5)); // malformed: ignored
    t.terminal.pushEvent(EF.FINGER, Buffer.alloc(4)); // another event kind: ignored
    t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeTcp(e2, 52));
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05'); // commands still work on the realtime connection
    await waitFor(() => events.length === 2);
    expect(events).toEqual([{ ...e1, userId: e1.userId.slice(0, 24) }, e2]);
    const acks = t.terminal.requests.filter((r) => r.command === CMD.ACK_OK && r.replyId === 0);
    expect(acks.length).toBe(4);
    await t.terminal.stop();
    await waitFor(() => ended !== null);
    expect(ended).toBeInstanceOf(ZkConnectionError);
  });

  it('a packet carrying two padded (52-byte) events delivers both (as pyzk reads them, 52 bytes at a time)', async () => {
    const t = await setup({ transport: 'tcp', seed: 19 });
    cleanup = t.cleanup;
    await t.zk.connect();
    const events: ZkRealtimeAttlog[] = [];
    await t.zk.subscribeRealtime((e) => events.push(e));
    const e1 = { userId: '2001', verifyType: 15, state: 0, logTime: '2026-11-20 08:00:00' };
    const e2 = { userId: '2002', verifyType: 1, state: 1, logTime: '2026-11-20 08:00:02' };
    t.terminal.pushEvent(EF.ATTLOG, Buffer.concat([encodeRealtimeTcp(e1, 52), encodeRealtimeTcp(e2, 52)]));
    t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeTcp({ ...e2, logTime: '2026-11-20 08:00:03' }, 32));
    await waitFor(() => events.length === 3);
    expect(events).toEqual([e1, e2, { ...e2, logTime: '2026-11-20 08:00:03' }]);
  });

  // Padded differently in one packet: before, the first was read live and the second dropped
  // without a word (it came with the next poll).
  it('a packet carrying a 32-byte event and then a 52-byte one delivers both', async () => {
    const t = await setup({ transport: 'tcp', seed: 29 });
    cleanup = t.cleanup;
    await t.zk.connect();
    const events: ZkRealtimeAttlog[] = [];
    await t.zk.subscribeRealtime((e) => events.push(e));
    const e1 = { userId: '4001', verifyType: 1, state: 0, logTime: '2026-12-02 08:00:00' };
    const e2 = { userId: 'A-000000000000000000000002', verifyType: 15, state: 1, logTime: '2026-12-02 08:00:01' };
    const e2sent = { ...e2, userId: e2.userId.slice(0, 24) };
    t.terminal.pushEvent(EF.ATTLOG, Buffer.concat([encodeRealtimeTcp(e1, 32), encodeRealtimeTcp(e2sent, 52)]));
    const last = { userId: '4003', verifyType: 1, state: 0, logTime: '2026-12-02 08:00:02' };
    t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeTcp(last, 52));
    await waitFor(() => events.at(-1)?.userId === '4003');
    expect(events).toEqual([e1, e2sent, last]);
  });

  it.each([32, 36, 37])(
    'a packet carrying two %i-byte events delivers both; zero padding after one event is no second',
    async (size) => {
      const t = await setup({ transport: 'tcp', seed: 23 });
      cleanup = t.cleanup;
      await t.zk.connect();
      const events: ZkRealtimeAttlog[] = [];
      await t.zk.subscribeRealtime((e) => events.push(e));
      const e1 = { userId: '3001', verifyType: 1, state: 0, logTime: '2026-12-01 08:00:00' };
      const e2 = { userId: '3002', verifyType: 15, state: 1, logTime: '2026-12-01 08:00:01' };
      t.terminal.pushEvent(EF.ATTLOG, Buffer.concat([encodeRealtimeTcp(e1, size), encodeRealtimeTcp(e2, size)]));
      t.terminal.pushEvent(EF.ATTLOG, Buffer.concat([encodeRealtimeTcp(e1, size), Buffer.alloc(size)]));
      const last = { userId: '3003', verifyType: 1, state: 0, logTime: '2026-12-01 08:00:02' };
      t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeTcp(last, size));
      await waitFor(() => events.at(-1)?.userId === '3003');
      expect(events).toEqual([e1, e2, e1, last]);
    },
  );

  it('auto transport falls back to UDP when TCP is refused', async () => {
    const t = await setup({ transport: 'udp' });
    cleanup = t.cleanup;
    // Make sure nothing listens on TCP at that port number.
    const probe = net.connect(t.port, '127.0.0.1');
    const refused = await new Promise<boolean>((r) => {
      probe.once('error', () => r(true));
      probe.once('connect', () => r(false));
    });
    probe.destroy();
    expect(refused).toBe(true);
    const zk = new ZkClient({ host: '127.0.0.1', port: t.port, transport: 'auto', timeoutMs: 5000 });
    await zk.connect();
    expect(zk.transportKind).toBe('udp');
    expect(await zk.getTime()).toBe('2018-06-25 17:41:05');
    await zk.disconnect();
  });

  it('tcp transport fails with ZkConnectionError when refused', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
    const zk = new ZkClient({ host: '127.0.0.1', port, transport: 'tcp', timeoutMs: 400 });
    const err = await zk.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkConnectionError);
    expect((err as ZkConnectionError).code).toBe('ECONNREFUSED');
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
  });
});
