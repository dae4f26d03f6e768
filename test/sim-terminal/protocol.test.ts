import { describe, expect, it } from 'vitest';
import { CMD } from '../../src/sources/zk/protocol/constants.js';
import { decodeFreeSizes } from '../../src/sources/zk/protocol/free-sizes.js';
import { decodeAttendances, decodeUsers } from '../../src/sources/zk/protocol/records.js';
import { decodeZkTime, encodeZkTime } from '../../src/sources/zk/protocol/time.js';
import { useTerminalSim } from './harness.js';
import { dataRdy, WRRQ_ATTLOG, WRRQ_USERS } from './raw-client.js';

const h = useTerminalSim();
const { start, tcp, udp } = h;

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n, 0);
  return b;
};

describe('sessions and simple commands', () => {
  it('gives each connection its own non-zero session id and echoes reply ids', async () => {
    await start({});
    const a = await tcp();
    const b = await tcp();
    const ra = await a.connect();
    const rb = await b.connect();
    expect(ra.command).toBe(CMD.ACK_OK);
    expect(ra.replyId).toBe(1);
    expect(ra.sessionId).not.toBe(0);
    expect(ra.sessionId).not.toBe(1);
    expect(rb.sessionId).not.toBe(ra.sessionId);
    a.replyId = 4711;
    const t = await a.request(CMD.GET_TIME);
    expect(t.replyId).toBe(4712);
    expect(t.sessionId).toBe(ra.sessionId);
    expect(h.sim.sessions()).toBe(2);
  });

  it('answers ACK_UNAUTH to anything before CONNECT', async () => {
    await start({});
    const c = await tcp();
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).command).toBe(CMD.ACK_UNAUTH);
  });

  it('answers pipelined requests in order and ignores client ACK_OK', async () => {
    await start({ serialNumber: 'SIMTEST42', firmware: 'Ver 6.60 Apr 28 2015' });
    const c = await tcp();
    await c.connect();
    const from = c.packets.length;
    // One write with five requests, as node-zklib's DATA_RDY burst arrives.
    const burst = [
      [CMD.GET_VERSION, Buffer.alloc(0)],
      [CMD.OPTIONS_RRQ, Buffer.from('~SerialNumber\0')],
      [CMD.ACK_OK, Buffer.alloc(0)],
      [4242, Buffer.alloc(0)],
      [CMD.OPTIONS_RRQ, Buffer.from('NoSuchOption\0')],
    ] as const;
    const { encodePacket, wrapTcp } = await import('../../src/sources/zk/protocol/packet.js');
    c.sendRaw(
      Buffer.concat(
        burst.map(([command, data], i) =>
          wrapTcp(encodePacket({ command, sessionId: c.sessionId, replyId: 10 + i, data })),
        ),
      ),
    );
    const got = (await c.waitPackets(from + 4)).slice(from);
    await new Promise((r) => setTimeout(r, 100));
    expect(c.packets.length).toBe(from + 4); // nothing for the ACK_OK
    expect(got.map((p) => [p.command, p.replyId])).toEqual([
      [CMD.ACK_OK, 10],
      [CMD.ACK_OK, 11],
      [CMD.ACK_UNKNOWN, 13],
      [CMD.ACK_ERROR, 14],
    ]);
    expect(got[0]!.data.toString('latin1')).toBe('Ver 6.60 Apr 28 2015\0');
    expect(got[1]!.data.toString('latin1')).toBe('~SerialNumber=SIMTEST42\0');
    h.sim.setSerialNumber('SWAPPED1');
    expect((await c.request(CMD.OPTIONS_RRQ, Buffer.from('~SerialNumber\0'))).data.toString('latin1')).toBe(
      '~SerialNumber=SWAPPED1\0',
    );
  });

  it('reports counts in the 92-byte GET_FREE_SIZES reply and clears the log on CLEAR_ATTLOG', async () => {
    await start({ generate: { users: 7, punches: 33 } });
    const c = await tcp();
    await c.connect();
    const r = await c.request(CMD.GET_FREE_SIZES);
    expect(r.data.length).toBe(92);
    const s = decodeFreeSizes(r.data);
    expect([s.users, s.records, s.recordCapacity]).toEqual([7, 33, 100_000]);
    expect((await c.request(CMD.CLEAR_ATTLOG)).command).toBe(CMD.ACK_OK);
    expect(h.sim.clearCount()).toBe(1);
    expect(h.sim.punches()).toEqual([]);
    expect(decodeFreeSizes((await c.request(CMD.GET_FREE_SIZES)).data).records).toBe(0);
  });

  it('keeps its clock, which SET_TIME moves and GET_TIME reads', async () => {
    await start({ clock: '2025-03-30 01:59:58' });
    const c = await tcp();
    await c.connect();
    const t0 = decodeZkTime((await c.request(CMD.GET_TIME)).data.readUInt32LE(0));
    expect(t0 >= '2025-03-30 01:59:58' && t0 <= '2025-03-30 02:00:00').toBe(true);
    expect((await c.request(CMD.SET_TIME, u32(encodeZkTime('2031-12-31 23:59:30')))).command).toBe(CMD.ACK_OK);
    const t1 = decodeZkTime((await c.request(CMD.GET_TIME)).data.readUInt32LE(0));
    expect(t1 >= '2031-12-31 23:59:30' && t1 <= '2031-12-31 23:59:32').toBe(true);
    // 31 February does not exist: refused, clock unchanged.
    const feb31 = ((25 * 12 + 1) * 31 + 30) * 86400;
    expect((await c.request(CMD.SET_TIME, u32(feb31))).command).toBe(CMD.ACK_ERROR);
    expect((await c.request(CMD.SET_TIME, Buffer.alloc(2))).command).toBe(CMD.ACK_ERROR);
  });
});

describe('bulk download over TCP', () => {
  it('sends a small dataset direct in one CMD_DATA packet (72-byte users, 40-byte logs)', async () => {
    await start({
      users: [{ uid: 3, userId: 'EMP-000123456789', name: 'Zoë Ünal', privilege: 14, card: 99, password: '12' }],
      punches: [
        { userId: 'EMP-000123456789', logTime: '2024-03-31 02:30:00', verifyType: 2, state: 1 },
        { userId: '77', logTime: '2099-12-31 23:59:59', verifyType: 15, state: 5 },
      ],
    });
    const c = await tcp();
    await c.connect();
    const users = await c.request(CMD.DATA_WRRQ, WRRQ_USERS);
    expect(users.command).toBe(CMD.DATA);
    expect(users.data.length).toBe(4 + 72);
    expect(decodeUsers(users.data, { recordSize: 72 }).records).toEqual([
      { uid: 3, privilege: 14, password: '12', name: 'Zoë Ünal', card: 99, group: 1, userId: 'EMP-000123456789' },
    ]);
    const logs = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    expect(logs.command).toBe(CMD.DATA);
    const att = decodeAttendances(logs.data, { recordSize: 40 }).records;
    expect(att.map((a) => [a.uid, a.userId, a.logTime, a.verifyType, a.state])).toEqual([
      [3, 'EMP-000123456789', '2024-03-31 02:30:00', 2, 1],
      [0, '77', '2099-12-31 23:59:59', 15, 5],
    ]);
  });

  it('chunks a large dataset: ACK_OK + 13-byte stat, then PREPARE_DATA / CMD_DATA / ACK_OK per DATA_RDY', async () => {
    await start({ generate: { users: 5, punches: 300 }, faults: { pacingMs: 15 } });
    const c = await tcp();
    await c.connect();
    const stat = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    expect(stat.command).toBe(CMD.ACK_OK);
    expect(stat.data.length).toBe(13);
    const size = stat.data.readUInt32LE(1);
    expect(size).toBe(4 + 300 * 40);
    expect(stat.data.readUInt32LE(5)).toBe(size);

    const readsBefore = c.reads.length;
    const from = c.packets.length;
    const rid = c.send(CMD.DATA_RDY, dataRdy(0, 65472));
    const [prep, data, ack] = (await c.waitPackets(from + 3)).slice(from);
    expect(prep!.command).toBe(CMD.PREPARE_DATA);
    expect(prep!.data.length).toBe(8);
    expect(prep!.data.readUInt32LE(0)).toBe(size);
    expect(data!.command).toBe(CMD.DATA);
    expect(data!.sessionId).toBe(0); // packet index within the chunk
    expect(data!.data.length).toBe(size);
    expect(ack!.command).toBe(CMD.ACK_OK);
    expect([prep!.replyId, data!.replyId, ack!.replyId]).toEqual([rid, rid, rid]);
    // PREPARE_DATA in its own read; the trailing ACK in the same write as the last CMD_DATA.
    const reads = c.reads.slice(readsBefore).filter((r) => r.packets.length > 0);
    expect(reads.map((r) => r.packets.map((p) => p.command))).toEqual([[CMD.PREPARE_DATA], [CMD.DATA, CMD.ACK_OK]]);

    const att = decodeAttendances(data!.data, { recordSize: 40 }).records;
    expect(att.map((a) => [a.userId, a.logTime, a.verifyType, a.state])).toEqual(
      h.sim.punches().map((p) => [p.userId, p.logTime, p.verifyType, p.state]),
    );
    // FREE_DATA discards the prepared dataset.
    expect((await c.request(CMD.FREE_DATA)).command).toBe(CMD.ACK_OK);
    expect((await c.request(CMD.DATA_RDY, dataRdy(0, 100))).command).toBe(CMD.ACK_ERROR);
  });

  it('serves pipelined DATA_RDY requests for several chunks in order', async () => {
    await start({ generate: { users: 20, punches: 3000 } });
    const c = await tcp();
    await c.connect();
    const stat = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    const size = stat.data.readUInt32LE(1);
    const from = c.packets.length;
    c.send(CMD.DATA_RDY, dataRdy(0, 65472));
    c.send(CMD.DATA_RDY, dataRdy(65472, size - 65472));
    c.send(CMD.DATA_RDY, dataRdy(size, 0)); // node-zklib's empty request when size is a multiple
    const got = (await c.waitPackets(from + 7)).slice(from);
    expect(got.map((p) => p.command)).toEqual([
      CMD.PREPARE_DATA,
      CMD.DATA,
      CMD.ACK_OK,
      CMD.PREPARE_DATA,
      CMD.DATA,
      CMD.ACK_OK,
      CMD.ACK_OK,
    ]);
    const dataset = Buffer.concat([got[1]!.data, got[4]!.data]);
    expect(dataset.length).toBe(size);
    const att = decodeAttendances(dataset, { recordSize: 40 }).records;
    expect(att).toHaveLength(3000);
    expect(att.map((a) => a.logTime)).toEqual(h.sim.punches().map((p) => p.logTime));
  });

  it('serves the current log on every download (after new punches and CLEAR_ATTLOG)', async () => {
    await start({ punches: [{ userId: '1', logTime: '2024-01-01 08:00:00' }] });
    const c = await tcp();
    await c.connect();
    const times = async () =>
      decodeAttendances((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).data, { recordSize: 40 }).records.map(
        (a) => a.logTime,
      );
    expect(await times()).toEqual(['2024-01-01 08:00:00']);
    h.sim.addPunch({ userId: '1', logTime: '2024-01-01 17:00:00', state: 1 });
    expect(await times()).toEqual(['2024-01-01 08:00:00', '2024-01-01 17:00:00']);
    await c.request(CMD.CLEAR_ATTLOG);
    const empty = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    expect([empty.command, empty.data.toString('hex')]).toEqual([CMD.DATA, '00000000']);
  });

  it('refuses a DATA_WRRQ for a dataset it does not have', async () => {
    await start({});
    const c = await tcp();
    await c.connect();
    // DB_RRQ of the operation log (FCT_OPLOG 4): not simulated. (FCT_FINGERTMP 2 is: the templates.)
    const oplog = Buffer.from([0x01, 0x07, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0]);
    expect((await c.request(CMD.DATA_WRRQ, oplog)).command).toBe(CMD.ACK_ERROR);
    expect((await c.request(CMD.DATA_WRRQ, Buffer.alloc(1))).command).toBe(CMD.ACK_ERROR);
    expect((await c.request(CMD.DATA_RDY, dataRdy(0, 10))).command).toBe(CMD.ACK_ERROR);
  });
});

describe('UDP', () => {
  it('always chunks, in datagrams of at most 1024 data bytes, with 28-byte users and 16-byte logs', async () => {
    await start({
      users: [
        { uid: 1, userId: '1005', name: 'Long Name Here', password: '123456' },
        { uid: 2, userId: 'ABC', name: 'X' },
      ],
      generate: { users: 3, punches: 100 },
    });
    const c = await udp();
    const con = await c.connect();
    expect(con.command).toBe(CMD.ACK_OK);
    expect(con.sessionId).not.toBe(0);

    const stat = await c.request(CMD.DATA_WRRQ, WRRQ_USERS);
    expect(stat.command).toBe(CMD.ACK_OK);
    expect(stat.data.readUInt32LE(1)).toBe(4 + 5 * 28);
    let from = c.packets.length;
    c.send(CMD.DATA_RDY, dataRdy(0, 4 + 5 * 28));
    let got = (await c.waitPackets(from + 3)).slice(from);
    expect(got.map((p) => p.command)).toEqual([CMD.PREPARE_DATA, CMD.DATA, CMD.ACK_OK]);
    const users = decodeUsers(got[1]!.data, { recordSize: 28 }).records;
    expect(users.map((u) => [u.uid, u.userId, u.name])).toEqual([
      [1, '1005', 'Long Nam'],
      [2, '0', 'X'],
      [3, '1', expect.any(String)],
      [4, '2', expect.any(String)],
      [5, '3', expect.any(String)],
    ]);

    await c.request(CMD.FREE_DATA);
    const stat2 = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    const size = stat2.data.readUInt32LE(1);
    expect(size).toBe(4 + 100 * 16);
    from = c.packets.length;
    c.send(CMD.DATA_RDY, dataRdy(0, size));
    const nData = Math.ceil(size / 1024);
    got = (await c.waitPackets(from + 2 + nData)).slice(from);
    expect(got[0]!.command).toBe(CMD.PREPARE_DATA);
    expect(got[got.length - 1]!.command).toBe(CMD.ACK_OK);
    const data = got.slice(1, -1);
    expect(data.every((p) => p.command === CMD.DATA && p.data.length <= 1024)).toBe(true);
    const att = decodeAttendances(Buffer.concat(data.map((p) => p.data)), { recordSize: 16 }).records;
    // The 16-byte layout holds numeric ids only: 'ABC' goes out as 0.
    expect(att.map((a) => [a.userId, a.logTime])).toEqual(
      h.sim.punches().map((p) => [p.userId === 'ABC' ? '0' : p.userId, p.logTime]),
    );
  });

  it('keeps one session per peer and answers unknown peers ACK_UNAUTH', async () => {
    await start({});
    const a = await udp();
    const b = await udp();
    expect((await a.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    const sa = (await a.connect()).sessionId;
    const sb = (await b.connect()).sessionId;
    expect(sa).not.toBe(sb);
    expect((await a.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
    expect((await a.request(CMD.EXIT)).command).toBe(CMD.ACK_OK);
    expect((await a.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    expect((await b.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
  });
});
