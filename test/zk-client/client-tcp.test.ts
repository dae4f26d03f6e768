import { afterEach, describe, expect, it } from 'vitest';
import { ZkAuthError, ZkConnectionError } from '../../src/sources/zk/client/index.js';
import { CMD, makeCommKey, MAX_CHUNK } from '../../src/sources/zk/protocol/index.js';
import { reply } from './fake-terminal.js';
import { dataset40, makeAttendances, setup, USERS, users72 } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('ZkClient over TCP', () => {
  it('connects, reads info, serial, firmware and time, and disconnects', async () => {
    const t = await setup({ transport: 'tcp', seed: 7 });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(t.zk.transportKind).toBe('tcp');
    expect(await t.zk.getInfo()).toMatchObject({ users: 2, records: 5, recordCapacity: 100_000 });
    expect(await t.zk.getSerialNumber()).toBe('FAKE0001');
    expect(await t.zk.getFirmware()).toBe('Ver 6.60 Apr 28 2015');
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
    await t.zk.setTime('2024-03-31 02:30:00');
    expect(await t.zk.getTime()).toBe('2024-03-31 02:30:00');
    await t.zk.disconnect();
    expect(t.zk.connected).toBe(false);
    expect(t.terminal.requests.map((r) => r.command)).toContain(CMD.EXIT);
    // session id from the CONNECT reply is sent back
    expect(t.terminal.requests.at(-1)?.sessionId).toBe(0x45cf);
  });

  it('authenticates with the right comm key', async () => {
    const t = await setup({ transport: 'tcp', commKey: 123456 }, { commKey: 123456 });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
    expect(t.terminal.requests.map((r) => r.command).slice(0, 2)).toEqual([CMD.CONNECT, CMD.AUTH]);
  });

  it('rejects a wrong comm key with ZkAuthError naming host:port but not the key', async () => {
    const t = await setup({ transport: 'tcp', commKey: 123456 }, { commKey: 654321 });
    cleanup = t.cleanup;
    const err = await t.zk.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkAuthError);
    expect((err as Error).message).toBe(`comm key refused by 127.0.0.1:${t.port}`);
    expect((err as Error).message).not.toContain('654321');
    expect(t.zk.connected).toBe(false);
  });

  it('rejects a terminal that needs a key when none is configured', async () => {
    const t = await setup({ transport: 'tcp', commKey: 5 });
    cleanup = t.cleanup;
    await expect(t.zk.connect()).rejects.toThrow(/requires a comm key/);
  });

  it('logs in with key 0 when a terminal with no Comm Key set still asks for the login (as pyzk does)', async () => {
    // The terminal's key is 0; it answers CONNECT with ACK_UNAUTH all the same.
    const t = await setup({
      transport: 'tcp',
      hook: (req, replies, conn) =>
        req.command === CMD.CONNECT ? [reply(req, CMD.ACK_UNAUTH, conn.sessionId)] : replies,
    });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
    const auth = t.terminal.requests.find((r) => r.command === CMD.AUTH);
    expect(auth?.data).toEqual(makeCommKey(0, 0x45cf));
  });

  it('reads users (72-byte records, full ids, UTF-8 names) via the direct CMD_DATA path', async () => {
    const t = await setup({ transport: 'tcp', users: users72(), seed: 3 });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getUsers()).toEqual(USERS);
    expect(t.terminal.requests.some((r) => r.command === CMD.DATA_RDY)).toBe(false);
  });

  it('downloads 100,000 40-byte records in 65472-byte chunks split and coalesced at random', async () => {
    const records = makeAttendances(100_000);
    const data = dataset40(records);
    const t = await setup({ transport: 'tcp', attendance: data, seed: 42 }, { timeoutMs: 5000 });
    cleanup = t.cleanup;
    await t.zk.connect();
    const progress: number[] = [];
    const totals = new Set<number>();
    const got = await t.zk.getAttendances((n, total) => {
      totals.add(total);
      progress.push(n);
    });
    expect([...totals]).toEqual([data.length]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(got.length).toBe(100_000);
    expect(got).toEqual(records);
    expect(progress.at(-1)).toBe(data.length);
    const rdy = t.terminal.requests.filter((r) => r.command === CMD.DATA_RDY);
    expect(rdy.length).toBe(Math.ceil(data.length / MAX_CHUNK));
    expect(rdy.map((r) => r.data.readUInt32LE(4)).every((len) => len <= MAX_CHUNK)).toBe(true);
    expect(t.terminal.requests.at(-1)?.command).toBe(CMD.FREE_DATA);
    expect(t.zk.lastDownload).toMatchObject({ recordSize: 40, malformedBytes: 0, suspectRecords: 0 });
    // the connection is still in step afterwards
    expect(await t.zk.getTime()).toBe('2018-06-25 17:41:05');
  }, 20_000);

  it('copes with a chunk delivered as many small CMD_DATA packets', async () => {
    const records = makeAttendances(3000);
    const t = await setup(
      { transport: 'tcp', attendance: dataset40(records), dataPacketSize: 1008, seed: 9 },
      { chunkSize: 50_000 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getAttendances()).toEqual(records);
  });

  it('fails clearly when the peer closes mid-transfer, and reconnects afterwards', async () => {
    let rdy = 0;
    const records = makeAttendances(5000);
    const t = await setup({
      transport: 'tcp',
      attendance: dataset40(records),
      seed: 11,
      hook: (req, replies, conn) => {
        if (req.command === CMD.DATA_RDY && ++rdy === 2) {
          conn.send(replies.slice(0, 1)); // PREPARE_DATA only, then hang up
          conn.close();
          return [];
        }
      },
    });
    cleanup = t.cleanup;
    await t.zk.connect();
    const err = await t.zk.getAttendances().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZkConnectionError);
    expect((err as Error).message).toBe(`connection to 127.0.0.1:${t.port} closed during DATA_RDY(1504)`);
    expect(t.zk.connected).toBe(false);
    await expect(t.zk.getTime()).rejects.toThrow(/was closed before this request/);
    await t.zk.connect();
    expect(await t.zk.getAttendances()).toEqual(records);
  });

  it('tolerates the peer closing before EXIT', async () => {
    const t = await setup({
      transport: 'tcp',
      hook: (req, _r, conn) => {
        if (req.command === CMD.EXIT) {
          conn.close();
          return [];
        }
      },
    });
    cleanup = t.cleanup;
    await t.zk.connect();
    await expect(t.zk.disconnect()).resolves.toBeUndefined();
    await expect(t.zk.disconnect()).resolves.toBeUndefined();
  });

  it('clears the attendance log', async () => {
    const t = await setup({ transport: 'tcp', attendance: dataset40(makeAttendances(3)) });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect((await t.zk.getAttendances()).length).toBe(3);
    await t.zk.clearAttendanceLog();
    expect(await t.zk.getAttendances()).toEqual([]);
  });

  it('refuses operations before connect with a clear error', async () => {
    const t = await setup({ transport: 'tcp' });
    cleanup = t.cleanup;
    await expect(t.zk.getInfo()).rejects.toThrow(ZkConnectionError);
  });
});
