import { afterEach, describe, expect, it } from 'vitest';
import { ZkAuthError, ZkTimeoutError } from '../../src/sources/zk/client/index.js';
import { CMD, EF, encodeRealtimeUdp, MAX_CHUNK, type ZkRealtimeAttlog } from '../../src/sources/zk/protocol/index.js';
import { dataset16, makeAttendances, setup, USERS, users28 } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('ZkClient over UDP', () => {
  it('downloads 10,000 16-byte records in 1024-byte datagrams', async () => {
    const records = makeAttendances(10_000, false);
    const data = dataset16(records);
    const t = await setup({ transport: 'udp', attendance: data }, { timeoutMs: 5000 });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(t.zk.transportKind).toBe('udp');
    const got = await t.zk.getAttendances();
    expect(got).toEqual(records);
    expect(t.zk.lastDownload).toMatchObject({ recordSize: 16, malformedBytes: 0 });
    const rdy = t.terminal.requests.filter((r) => r.command === CMD.DATA_RDY);
    expect(rdy.length).toBe(Math.ceil(data.length / MAX_CHUNK));
    await t.zk.disconnect();
  });

  it('reads 28-byte users with numeric ids', async () => {
    const t = await setup({ transport: 'udp', users: users28() });
    cleanup = t.cleanup;
    await t.zk.connect();
    const users = await t.zk.getUsers();
    expect(users.map((u) => u.userId)).toEqual(['1000', '1001']);
    expect(users.map((u) => u.uid)).toEqual(USERS.map((u) => u.uid));
  });

  it('handshakes with a comm key and refuses a wrong one', async () => {
    const ok = await setup({ transport: 'udp', commKey: 45 }, { commKey: 45 });
    await ok.zk.connect();
    expect(await ok.zk.getTime()).toBe('2018-06-25 17:41:05');
    await ok.cleanup();
    const bad = await setup({ transport: 'udp', commKey: 45 }, { commKey: 12 });
    cleanup = bad.cleanup;
    await expect(bad.zk.connect()).rejects.toThrow(new ZkAuthError(`comm key refused by 127.0.0.1:${bad.port}`));
  });

  it('a question whose every answer is lost (asked three times) times out and a new session works', async () => {
    let dropping = true;
    const t = await setup(
      {
        transport: 'udp',
        hook: (req) => {
          if (req.command === CMD.GET_FREE_SIZES && dropping) return [];
        },
      },
      { timeoutMs: 250 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    await expect(t.zk.getInfo()).rejects.toBeInstanceOf(ZkTimeoutError);
    expect(t.terminal.requests.filter((r) => r.command === CMD.GET_FREE_SIZES)).toHaveLength(3);
    dropping = false;
    await t.zk.connect();
    expect((await t.zk.getInfo()).users).toBe(2);
  });

  it('asks a chunk again when a datagram of it was lost (a lossy link), and reads every record once', async () => {
    const records = makeAttendances(10_000, false);
    const data = dataset16(records);
    let tries = 0;
    const seen = new Set<string>();
    const t = await setup(
      {
        transport: 'udp',
        attendance: data,
        // Loses one data datagram of each chunk's first try: the terminal's ACK_OK comes short.
        hook: (req, replies) => {
          if (req.command !== CMD.DATA_RDY) return;
          tries++;
          const key = `${req.data.readUInt32LE(0)}`;
          if (seen.has(key)) return;
          seen.add(key);
          return replies.filter((_, i) => i !== 3);
        },
      },
      { timeoutMs: 5000 },
    );
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getAttendances()).toEqual(records);
    const chunks = Math.ceil(data.length / MAX_CHUNK);
    expect(tries).toBe(2 * chunks);
    // A chunk short at every try still fails the download (the poll tries again later; nothing is cleared).
    const never = await setup(
      {
        transport: 'udp',
        attendance: data,
        hook: (req, r) => (req.command === CMD.DATA_RDY ? r.filter((_, i) => i !== 3) : undefined),
      },
      { timeoutMs: 5000 },
    );
    try {
      await never.zk.connect();
      await expect(never.zk.getAttendances()).rejects.toThrow(/chunk ended after 64448 of 65472 bytes/);
      expect(never.terminal.requests.filter((r) => r.command === CMD.DATA_RDY)).toHaveLength(3);
    } finally {
      await never.cleanup();
    }
  });

  it('decodes 10-byte real-time events with the full u16 user id', async () => {
    const t = await setup({ transport: 'udp' });
    cleanup = t.cleanup;
    await t.zk.connect();
    const events: ZkRealtimeAttlog[] = [];
    await t.zk.subscribeRealtime((e) => events.push(e));
    const e = { userId: '1005', verifyType: 1, state: 0, logTime: '2024-03-31 02:30:00' };
    t.terminal.pushEvent(EF.ATTLOG, encodeRealtimeUdp(e));
    await waitFor(() => events.length > 0, 20_000, 'the real-time event');
    expect(events).toEqual([e]);
  });

  // A terminal that sends the punches made while it was busy together: each 10-byte event in one
  // datagram is a punch. Before, the datagram was dropped as malformed: none of them came live.
  it('a datagram carrying several 10-byte events delivers each one', async () => {
    const t = await setup({ transport: 'udp' });
    cleanup = t.cleanup;
    await t.zk.connect();
    const events: ZkRealtimeAttlog[] = [];
    await t.zk.subscribeRealtime((e) => events.push(e));
    const sent = [1005, 1006, 1007].map((id, i) => ({
      userId: String(id),
      verifyType: 1,
      state: i % 2,
      logTime: `2026-12-02 08:0${i}:00`,
    }));
    t.terminal.pushEvent(EF.ATTLOG, Buffer.concat(sent.map(encodeRealtimeUdp)));
    await waitFor(() => events.length >= 3, 5000, 'the real-time events');
    expect(events).toEqual(sent);
  });
});
