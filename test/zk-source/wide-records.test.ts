/**
 * 49-byte attendance records (ZKTeco firmware of 2022 on: MB560-VL, MB40-VL). Their layout is the
 * 40-byte record plus 9 bytes: `<H24sB4sB12s5x>` (fananimi/pyzk PR #247); pyzk issue #174 found
 * the second record at offset 49, not 40, and pyzk PR #166 steps by the record size since.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import {
  CMD,
  decodeAttendances,
  encodeAttendance40,
  encodeDataset,
  encodeFreeSizes,
  type ZkAttendance,
} from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { journalFixture, zkConfig } from './helpers.js';

/** A 49-byte record: the 40-byte layout, then 9 bytes (here non-zero, as a device may fill them). */
function record49(a: ZkAttendance): Buffer {
  return Buffer.concat([encodeAttendance40(a), Buffer.from('000000000000000000', 'hex').fill(0x5a, 0, 4)]);
}

function punches(n: number): ZkAttendance[] {
  return Array.from({ length: n }, (_, i) => ({
    uid: 1 + (i % 7),
    userId: String(2001 + (i % 7)),
    verifyType: i % 2 === 0 ? 1 : 15,
    state: i % 6,
    logTime: `2026-11-${String(1 + (i % 28)).padStart(2, '0')} ${String(6 + (i % 12)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:07`,
  }));
}

describe('49-byte attendance records', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('decode 49 bytes apart, with the count the terminal announces and without it', () => {
    for (const n of [1, 2, 3, 8, 16, 40, 200]) {
      const want = punches(n);
      const dataset = encodeDataset(want.map(record49));
      for (const count of [n, undefined]) {
        const d = decodeAttendances(dataset, { count });
        expect(d.recordSize, `n=${n} count=${count}`).toBe(49);
        expect(d.malformedBytes).toBe(0);
        expect(d.suspectRecords).toBe(0);
        expect(d.records.map(({ workCode: _w, ...r }) => r)).toEqual(want);
      }
    }
  });

  it('40-byte logs still read as 40 even where 49 divides their size too', () => {
    const want = punches(49); // 49 x 40 = 40 x 49 bytes
    const d = decodeAttendances(encodeDataset(want.map(encodeAttendance40)), { count: 49 });
    expect(d.recordSize).toBe(40);
    expect(d.records.map(({ workCode: _w, ...r }) => r)).toEqual(want);
  });

  it('a poll journals every record with its code, time, state and verify type', async () => {
    const want = punches(300);
    const attendance = encodeDataset(want.map(record49));
    const terminal: FakeTerminal = new FakeTerminal({
      transport: 'tcp',
      attendance,
      dataPacketSize: 1008,
      hook: (req, replies, conn) => {
        if (req.command !== CMD.GET_FREE_SIZES) return replies;
        const records = attendance.readUInt32LE(0) / 49;
        return [
          reply(req, CMD.ACK_OK, conn.sessionId, encodeFreeSizes({ users: 7, records, recordCapacity: 100_000 })),
        ];
      },
    });
    const port = await terminal.start();
    const fx = journalFixture(() => Date.parse('2026-12-30T12:00:00Z'));
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port), fx.deps);
    expect(r).toMatchObject({ ok: true, records: 300, added: 300, badCodes: 0, quarantined: 0 });
    const got = fx.journal.queries
      .list()
      .map((p) => `${p.biometricCode}@${p.logTime} s${p.punchState} v${p.verifyType}`)
      .sort();
    const expected = want.map((a) => `${a.userId}@${a.logTime} s${a.state} v${a.verifyType}`).sort();
    expect(got).toEqual(expected);
  });
});
