import dgram from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CMD,
  EF,
  encodeAttendance40,
  encodeDataset,
  encodePacket,
  encodeRealtimeUdp,
  type ZkAttendance,
  type ZkPacket,
  type ZkRealtimeAttlog,
} from '../../src/sources/zk/protocol/index.js';
import type { Conn, Hook } from './fake-terminal.js';
import { dataset40, makeAttendances, setup } from './helpers.js';

/**
 * A stranger on the LAN posing as the terminal: replies forged in its name (the request's reply
 * id, made-up punches), from another port or with the terminal's own address and another
 * session's id. Not one made-up punch may come out of the client; real firmware's session fields
 * (numbered data packets, a piece's closing ACK_OK carrying its length) must still be read.
 */
const REAL = makeAttendances(30);
const MADE_UP: ZkAttendance = {
  uid: 9,
  userId: '6666',
  verifyType: 1,
  state: 0,
  logTime: '2025-11-20 08:00:00',
};
const forgedLog = () => encodeDataset([encodeAttendance40(MADE_UP)]);
const codes = (records: ZkAttendance[]) => new Set(records.map((r) => r.userId));

describe('a stranger answering in the terminal name', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function strangerSocket(): Promise<dgram.Socket> {
    const s = dgram.createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => s.close(() => r())));
    return s;
  }

  it('UDP: a forged reply and a forged punch event from another port are never taken (the socket is connected)', async () => {
    const stranger = await strangerSocket();
    let client: Conn['peer'];
    // The stranger answers first, the terminal 100 ms later.
    const hook: Hook = (req, replies, conn) => {
      client = conn.peer;
      if (req.command !== CMD.DATA_WRRQ || !client) return undefined;
      stranger.send(
        encodePacket({ command: CMD.DATA, sessionId: conn.sessionId, replyId: req.replyId, data: forgedLog() }),
        client.port,
        client.address,
      );
      conn.sendLater(100, replies);
      return [];
    };
    const { zk, terminal, cleanup } = await setup({ transport: 'udp', attendance: dataset40(REAL), hook });
    cleanups.push(cleanup);
    await zk.connect();
    const records = await zk.getAttendances();
    expect(records).toHaveLength(REAL.length);
    expect(codes(records).has('6666')).toBe(false);

    const events: ZkRealtimeAttlog[] = [];
    await zk.subscribeRealtime((e) => events.push(e));
    const real = { userId: '1001', verifyType: 1, state: 0, logTime: '2025-11-20 09:00:00' };
    const forged = { ...real, userId: '6666' };
    stranger.send(
      encodePacket({ command: CMD.REG_EVENT, sessionId: EF.ATTLOG, replyId: 0, data: encodeRealtimeUdp(forged) }),
      client!.port,
      client!.address,
    );
    terminal.pushEvent(EF.ATTLOG, encodeRealtimeUdp(real));
    await expect.poll(() => events.length).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([real]);
    expect(zk.foreignPackets).toBe(0);
  });

  for (const transport of ['tcp', 'udp'] as const) {
    it(`${transport.toUpperCase()}: a reply with another session id sent ahead of the terminal's is not taken, and counted`, async () => {
      const forge = (req: ZkPacket, conn: Conn, command: number, data?: Buffer) =>
        encodePacket({ command, sessionId: conn.sessionId ^ 0x5a5a, replyId: req.replyId, data });
      const hook: Hook = (req, replies, conn) => {
        // The log sent whole, and a piece's PREPARE_DATA with data of the asked length.
        if (req.command === CMD.DATA_WRRQ) {
          conn.send([forge(req, conn, CMD.DATA, forgedLog())]);
        } else if (req.command === CMD.DATA_RDY) {
          const length = req.data.readUInt32LE(4);
          const prep = Buffer.alloc(8);
          prep.writeUInt32LE(length, 0);
          conn.send([forge(req, conn, CMD.PREPARE_DATA, prep)]);
        } else if (req.command === CMD.GET_TIME) {
          conn.send([forge(req, conn, CMD.ACK_OK, Buffer.from([0, 0, 0, 0]))]);
        } else return undefined;
        conn.sendLater(50, replies);
        return [];
      };
      // Over TCP the log comes whole (DATA_WRRQ answered by CMD_DATA); over UDP in pieces.
      const { zk, cleanup } = await setup({ transport, attendance: dataset40(REAL), hook, directLimit: 4096 });
      cleanups.push(cleanup);
      await zk.connect();
      expect(await zk.getTime()).toBe('2018-06-25 17:41:05');
      const records = await zk.getAttendances();
      expect(records).toHaveLength(REAL.length);
      expect(codes(records).has('6666')).toBe(false);
      expect(zk.foreignPackets).toBe(transport === 'tcp' ? 2 : 3);
    });
  }

  it('a lone CMD_DATA of another session answering a piece is not taken for it', async () => {
    const hook: Hook = (req, replies) => {
      if (req.command !== CMD.DATA_RDY) return undefined;
      const length = req.data.readUInt32LE(4);
      const body = Buffer.alloc(length, 0x41);
      return [encodePacket({ command: CMD.DATA, sessionId: 0x1234, replyId: req.replyId, data: body }), ...replies];
    };
    const { zk, cleanup } = await setup({ transport: 'udp', attendance: dataset40(REAL), hook });
    cleanups.push(cleanup);
    await zk.connect();
    // Nothing of it is taken: the piece is refused, not read as 0x41 bytes.
    await expect(zk.getAttendances()).rejects.toThrow(/PREPARE_DATA|chunk|bytes/);
  });

  it("real firmware's session fields are read: data numbered 0, 1, 2 and a closing ACK_OK carrying the piece's length (js_zklib#53) or last number (pyzk)", async () => {
    for (const closing of ['length', 'number'] as const) {
      const hook: Hook = (req, replies) => {
        if (req.command !== CMD.DATA_RDY) return undefined;
        const last = replies.length - 1;
        const length = req.data.readUInt32LE(4);
        return replies.map((r, i) => {
          if (i !== last) return r;
          const sessionId = closing === 'length' ? length & 0xffff : last - 2;
          return encodePacket({ command: CMD.ACK_OK, sessionId, replyId: req.replyId });
        });
      };
      const { zk, cleanup } = await setup({
        transport: 'tcp',
        attendance: dataset40(REAL),
        hook,
        directLimit: 0,
        dataPacketSize: 1008,
      });
      cleanups.push(cleanup);
      await zk.connect();
      const records = await zk.getAttendances();
      expect(records.map((r) => r.userId)).toEqual(REAL.map((r) => r.userId));
      expect(zk.foreignPackets).toBe(0);
      await zk.disconnect();
    }
  });
});
