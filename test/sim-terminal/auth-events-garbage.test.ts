import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeCommKey } from '../../src/sources/zk/protocol/commkey.js';
import { CMD, EF } from '../../src/sources/zk/protocol/constants.js';
import { encodePacket, wrapTcp } from '../../src/sources/zk/protocol/packet.js';
import { startTerminalSim, type TerminalSim, type TerminalSimOptions } from '../../src/sim/terminal/index.js';
import { createLogger } from '../../src/util/logger.js';
import { useTerminalSim } from './harness.js';
import { RawTcp, waitFor, WRRQ_ATTLOG } from './raw-client.js';
import { expectNoSecret } from '../helpers/secret.js';

const h = useTerminalSim();
const { tcp, udp } = h;
let logLines: string[] = [];

/** Starts the simulator with a logger whose lines the test reads. */
async function start(opts: TerminalSimOptions): Promise<TerminalSim> {
  logLines = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (s: string) => void logLines.push(s) },
  });
  return h.start({ ...opts, logger });
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REG_ATTLOG = Buffer.from([0x01, 0, 0, 0]);

describe('comm key', () => {
  const KEY = 305419896;

  it('requires AUTH with makeCommKey(key, session, ticks) before anything else', async () => {
    await start({ commKey: KEY, generate: { users: 2, punches: 3 } });
    const c = await tcp();
    const con = await c.connect();
    expect(con.command).toBe(CMD.ACK_UNAUTH);
    expect(con.sessionId).not.toBe(0);
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.AUTH, makeCommKey(KEY + 1, con.sessionId))).command).toBe(CMD.ACK_UNAUTH);
    // The low byte of the session id falls out of the algorithm; a different high byte does not.
    expect((await c.request(CMD.AUTH, makeCommKey(KEY, con.sessionId ^ 0x100))).command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.AUTH, Buffer.alloc(2))).command).toBe(CMD.ACK_UNAUTH);
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    // Any ticks byte the client picks (ZKTeco4J uses random ones).
    expect((await c.request(CMD.AUTH, makeCommKey(KEY, con.sessionId, 0x9c))).command).toBe(CMD.ACK_OK);
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
    expect(logLines.join('')).toContain('comm key refused');
    expectNoSecret(logLines.join(''), String(KEY));
  });

  it('works the same over UDP, per peer', async () => {
    await start({ commKey: KEY });
    const a = await udp();
    const b = await udp();
    const sa = (await a.connect()).sessionId;
    const sb = (await b.connect()).sessionId;
    expect((await a.request(CMD.AUTH, makeCommKey(KEY, sa))).command).toBe(CMD.ACK_OK);
    expect((await a.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
    expect((await b.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    expect((await b.request(CMD.AUTH, makeCommKey(KEY + 1, sb))).command).toBe(CMD.ACK_UNAUTH);
    expect((await b.request(CMD.GET_TIME)).command).toBe(CMD.ACK_UNAUTH);
    expect((await b.request(CMD.AUTH, makeCommKey(KEY, sb))).command).toBe(CMD.ACK_OK);
    expect((await b.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
  });

  it('accepts any AUTH when no key is set', async () => {
    await start({});
    const c = await tcp();
    await c.connect();
    expect((await c.request(CMD.AUTH, makeCommKey(1, 2))).command).toBe(CMD.ACK_OK);
  });
});

describe('real-time events', () => {
  it('pushes a 32-byte EF_ATTLOG event over TCP, one per write, and ignores the client ACK', async () => {
    await start({ users: [{ uid: 1, userId: 'EMP-1005', name: 'A' }], faults: { pacingMs: 10 } });
    const c = await tcp();
    const quiet = await tcp();
    await c.connect();
    await quiet.connect();
    expect((await c.request(CMD.REG_EVENT, REG_ATTLOG)).command).toBe(CMD.ACK_OK);
    const from = c.packets.length;
    const readsFrom = c.reads.length;
    h.sim.addPunch({ userId: 'EMP-1005', logTime: '2018-06-25 17:41:05', verifyType: 2, state: 1 });
    h.sim.addPunch({ userId: 'EMP-1005', logTime: '2018-06-25 17:50:35', verifyType: 1, state: 0 });
    const [e1, e2] = (await c.waitPackets(from + 2)).slice(from);
    expect([e1!.command, e1!.sessionId, e1!.replyId]).toEqual([CMD.REG_EVENT, EF.ATTLOG, 0]);
    const expected = Buffer.alloc(32);
    expected.write('EMP-1005', 0, 'latin1');
    expected[24] = 2;
    expected[25] = 1;
    Buffer.from([0x12, 0x06, 0x19, 0x11, 0x29, 0x05]).copy(expected, 26);
    expect(e1!.data.toString('hex')).toBe(expected.toString('hex'));
    expect(e2!.data.subarray(26).toString('hex')).toBe('120619113223');
    expect(c.reads.slice(readsFrom).map((r) => r.packets.length)).toEqual([1, 1]);

    // pyzk acknowledges each event: no answer to that.
    c.send(CMD.ACK_OK, Buffer.alloc(0), 0);
    await pause(100);
    expect(c.packets.length).toBe(from + 2);
    expect(quiet.packets.length).toBe(1); // never registered: only its CONNECT reply

    // REG_EVENT 0 unregisters.
    await c.request(CMD.REG_EVENT, Buffer.alloc(4));
    const n = c.packets.length;
    h.sim.addPunch({ userId: 'EMP-1005', logTime: '2018-06-25 18:00:00' });
    await pause(100);
    expect(c.packets.length).toBe(n);
  });

  it('pushes an 18-byte datagram over UDP', async () => {
    await start({});
    const c = await udp();
    await c.connect();
    await c.request(CMD.REG_EVENT, REG_ATTLOG);
    const from = c.reads.length;
    h.sim.addPunch({ userId: '1005', logTime: '2018-06-25 17:41:05', verifyType: 1, state: 0 });
    await c.waitPackets(3);
    const read = c.reads[from]!;
    expect(read.bytes).toBe(18);
    const e = read.packets[0]!;
    expect([e.command, e.sessionId, e.replyId]).toEqual([CMD.REG_EVENT, EF.ATTLOG, 0]);
    expect(e.data.toString('hex')).toBe('ed0301001206191129' + '05');
  });

  it('startPunching makes punches at the terminal clock and stopPunching stops it', async () => {
    await start({ generate: { users: 3, punches: 0 }, clock: '2030-01-01 09:00:00' });
    const c = await tcp();
    await c.connect();
    await c.request(CMD.REG_EVENT, REG_ATTLOG);
    h.sim.startPunching(30);
    await waitFor(() => h.sim.punches().length >= 3, 20_000, 'three punches');
    h.sim.stopPunching();
    const made = h.sim.punches();
    await pause(100);
    expect(h.sim.punches().length).toBe(made.length);
    expect(made.slice(0, 3).map((p) => p.userId)).toEqual(['1', '2', '3']);
    expect(made.every((p) => p.logTime.startsWith('2030-01-01 09:00:0'))).toBe(true);
    await waitFor(() => c.packets.filter((p) => p.command === CMD.REG_EVENT).length === made.length, 20_000, 'events');
  });
});

describe('live punches of simulators with their own seeds', () => {
  it('two simulators started together punch other codes at each tick', async () => {
    // A new-user rehearsal: seeds 1 and 2, a punch every 20 s each, started in the same second:
    // every live punch of one was "already exists" at the HRMS (same code, same second).
    const sims = await Promise.all(
      [1, 2].map((seed) =>
        startTerminalSim({ generate: { users: 20, punches: 0, seed }, clock: '2030-01-01 09:00:00' }),
      ),
    );
    try {
      for (const sim of sims) sim.startPunching(20);
      await waitFor(() => sims.every((sim) => sim.punches().length >= 3), 20_000, 'three punches each');
      for (const sim of sims) sim.stopPunching();
      const [a, b] = sims.map((sim) =>
        sim
          .punches()
          .slice(0, 3)
          .map((p) => p.userId),
      );
      for (let k = 0; k < 3; k++) expect(a![k], `tick ${k}`).not.toBe(b![k]);
    } finally {
      await Promise.all(sims.map((sim) => sim.stop()));
    }
  });
});

describe('garbage from clients', () => {
  it('survives random bytes on TCP and keeps serving', async () => {
    await start({});
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), async (bytes) => {
        const g = await RawTcp.open(h.sim.port);
        g.sendRaw(Buffer.from(bytes));
        await pause(2);
        g.close();
      }),
      { numRuns: 60, seed: 4370 },
    );
    const c = await tcp();
    // Bad magic, a length below the header size, a huge length: all skipped on one connection.
    c.sendRaw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    c.sendRaw(Buffer.from([0x50, 0x50, 0x82, 0x7d, 0x03, 0, 0, 0, 1, 2, 3]));
    c.sendRaw(Buffer.from([0x50, 0x50, 0x82, 0x7d, 0xff, 0xff, 0xff, 0xff, 9, 9]));
    expect((await c.connect()).command).toBe(CMD.ACK_OK);
    expect(logLines.join('')).toContain('garbage from client skipped');
  });

  it('answers well-framed packets with any command and data without failing', async () => {
    await start({ generate: { users: 3, punches: 40 } });
    const c = await tcp();
    await c.connect();
    const codes = [...Object.values(CMD), 0, 1, 7, 1234, 65534];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...codes), fc.uint8Array({ maxLength: 40 }), async (command, data) => {
        if (command === CMD.CONNECT || command === CMD.EXIT) return;
        c.sendRaw(wrapTcp(encodePacket({ command, sessionId: c.sessionId, replyId: 1, data: Buffer.from(data) })));
      }),
      { numRuns: 300, seed: 1503 },
    );
    const rid = c.send(CMD.GET_TIME, Buffer.alloc(0), 999);
    await waitFor(
      () => c.packets.some((p) => p.replyId === rid && p.command === CMD.ACK_OK && p.data.length === 4),
      20_000,
      'GET_TIME reply',
    );
    expect(logLines.join('')).not.toContain('request failed');
  });

  it('survives runt and random datagrams on UDP', async () => {
    await start({ generate: { users: 2, punches: 5 } });
    const g = await udp();
    for (const len of [0, 1, 7]) g.sendRaw(Buffer.alloc(len, 0xaa));
    fc.sample(fc.uint8Array({ minLength: 8, maxLength: 200 }), { numRuns: 100, seed: 7 }).forEach((b) =>
      g.sendRaw(Buffer.from(b)),
    );
    await pause(100);
    const c = await udp();
    expect((await c.connect()).command).toBe(CMD.ACK_OK);
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
    expect(logLines.join('')).toContain('runt datagram dropped');
    expect(logLines.join('')).not.toContain('request failed');
  });
});
