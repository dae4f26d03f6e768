/**
 * A terminal that opens the ZK session and answers its counts, but refuses the attendance log
 * download: a SpeedFace-H5L with push firmware ZAM180 Ver 3.3.2 answered DATA_WRRQ(ATTLOG_RRQ)
 * with code 4989 while it gave its serial, its counts (567 users, 0 records) and its users
 * (https://github.com/fananimi/pyzk/issues/170, 2024-06-04 comment; the exchange is rebuilt here
 * on the fake terminal, not copied). Nothing is journalled or cleared, and the admin is told the
 * terminal refuses its log and to let it push, not to check a host and port that are right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { checkZkTerminal } from '../../src/check/zk-check.js';
import type { TerminalRecord } from '../../src/journal/types.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { CMD, encodeAttendance8, encodeDataset, encodeFreeSizes } from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

describe('a ZK terminal that refuses to hand over its attendance log', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each([
    ['tcp', 4989],
    ['udp', 4989],
    ['tcp', CMD.ACK_ERROR],
  ] as const)(
    'over %s, answering the download with code %i: said as a refusal with the push route',
    async (transport, code) => {
      const terminal = new FakeTerminal({
        transport,
        attendance: dataset40(makeAttendances(3)),
        hook: (req, replies, conn) => {
          if (req.command === CMD.DATA_WRRQ && req.data.readUInt16LE(1) === CMD.ATTLOG_RRQ)
            return [reply(req, code, conn.sessionId)];
          if (req.command === CMD.GET_FREE_SIZES)
            return [
              reply(
                req,
                CMD.ACK_OK,
                conn.sessionId,
                encodeFreeSizes({ users: 567, records: 0, recordCapacity: 200_000 }),
              ),
            ];
          return replies;
        },
      });
      const port = await terminal.start();
      const fx = journalFixture(() => Date.parse('2030-01-01T12:00:00Z'));
      cleanups.push(() => terminal.stop(), fx.cleanup);
      const r = await pollTerminal(zkConfig(port, { transport, clearAfterDays: 1 }), fx.deps);
      expect(r).toMatchObject({ ok: false, added: 0, cleared: false });
      expect(r.error).toBe(
        `gate-1 (127.0.0.1:${port}) answers as a ZK terminal but refused to hand over its attendance log (answered code ${code}): ` +
          'its firmware does not let punchgate read the log over port ' +
          `${port} (push-only firmware such as SpeedFace-H5L ZAM180 Ver 3.3.x does so); nothing is lost, its punches wait on the terminal`,
      );
      expect(fx.deps.ledger.get('gate-1')?.lastErrorFix).toContain('add it as kind: adms with its serial number');
      expect(terminal.requests.map((p) => p.command)).not.toContain(CMD.CLEAR_ATTLOG);
      expect(fx.journal.queries.list()).toEqual([]);
    },
  );
});

describe('a ZK terminal that refuses its user list where its 8-byte log needs it', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is said as a refusal of the user list; nothing journalled under an index taken for a code', async () => {
    const log = [1, 2].map((uid) =>
      encodeAttendance8({ uid, userId: String(uid), verifyType: 1, state: 0, logTime: `2025-11-20 08:0${uid}:00` }),
    );
    const terminal = new FakeTerminal({
      transport: 'tcp',
      attendance: encodeDataset(log),
      hook: (req, replies, conn) =>
        req.command === CMD.DATA_WRRQ && req.data.readUInt16LE(1) === CMD.USERTEMP_RRQ
          ? [reply(req, CMD.ACK_ERROR, conn.sessionId)]
          : replies,
    });
    const port = await terminal.start();
    const fx = journalFixture(() => Date.parse('2030-01-01T12:00:00Z'));
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port), fx.deps);
    expect(r).toMatchObject({ ok: false, added: 0, cleared: false });
    expect(r.error).toBe(
      `gate-1 (127.0.0.1:${port}) answers as a ZK terminal but refused to hand over its user list (answered code 2001); nothing is lost, its punches wait on the terminal`,
    );
    expect(fx.journal.queries.list()).toEqual([]);
  });
});

describe('the simulator with push-only firmware (attendanceRefusal)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('answers the session and the counts, refuses the log: the poll says so and keeps nothing', async () => {
    const sim = await startTerminalSim({
      generate: { users: 4, punches: 20, startTime: '2026-01-05 08:00:00', seed: 3 },
      firmwareQuirks: { attendanceRefusal: 4989 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(sim.port), fx.deps);
    expect(r).toMatchObject({ ok: false, users: 4, added: 0, cleared: false });
    expect(r.error).toContain('refused to hand over its attendance log (answered code 4989)');
    expect(sim.punches()).toHaveLength(20);
    expect(fx.journal.queries.list()).toEqual([]);
  });
});

/**
 * `punchgate check` did not ask for the log, so a terminal refusing it passed check and failed
 * every poll. Check asks for the download and lets it go unread (DATA_WRRQ, FREE_DATA): a refusal
 * fails it with the poll's words; a terminal that hands its log over is not read whole.
 */
describe('punchgate check of a ZK terminal asks for its log without reading it', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each(['tcp', 'udp'] as const)(
    'over %s, a refused log download fails the check with the push route',
    async (transport) => {
      const sim = await startTerminalSim({
        punches: [{ userId: '1', logTime: '2025-01-01 08:00:00' }],
        firmwareQuirks: { attendanceRefusal: 4989 },
      });
      cleanups.push(() => sim.stop());
      const r = await checkZkTerminal(zkConfig(sim.port, { transport, skewThresholdSeconds: 1e9 }), 0, {
        clock: { now: () => Date.now() },
      });
      expect(r.status).toBe('fail');
      expect(r.detail).toMatch(/refused to hand over its attendance log \(answered code 4989\)/);
      expect(r.fix).toMatch(/add it as kind: adms with its serial number/);
    },
  );

  it.each(['tcp', 'udp'] as const)(
    'over %s, a log handed over is not downloaded by check: asked, then let go',
    async (transport) => {
      const terminal = new FakeTerminal({ transport, attendance: dataset40(makeAttendances(3000)) });
      const port = await terminal.start();
      cleanups.push(() => terminal.stop());
      const r = await checkZkTerminal(zkConfig(port, { transport, skewThresholdSeconds: 1e9 }), 0, {
        clock: { now: () => Date.now() },
      });
      expect(r.status, r.detail).toBe('pass');
      const asked = terminal.requests.map((p) => p.command);
      expect(asked).toContain(CMD.DATA_WRRQ);
      expect(asked).toContain(CMD.FREE_DATA);
      // The log is some 120 kB: none of it was asked for piece by piece, nothing cleared.
      expect(asked).not.toContain(CMD.DATA_RDY);
      expect(asked).not.toContain(CMD.CLEAR_ATTLOG);
    },
  );

  it('not while punchgate run reads the terminal (its poll, whole, minutes ago): its download may be under way', async () => {
    const terminal = new FakeTerminal({ transport: 'tcp', attendance: dataset40(makeAttendances(3000)) });
    const port = await terminal.start();
    cleanups.push(() => terminal.stop());
    const now = Date.now();
    const cfg = zkConfig(port, { skewThresholdSeconds: 1e9 });
    const r = await checkZkTerminal(cfg, 0, {
      clock: { now: () => now },
      runningAt: { host: cfg.host, port: cfg.port },
      lastSeen: { name: cfg.name, lastSuccessAt: now - 60_000 } as TerminalRecord,
    });
    expect(r.status, r.detail).toBe('pass');
    expect(terminal.requests.map((p) => p.command)).not.toContain(CMD.DATA_WRRQ);
  });
});
