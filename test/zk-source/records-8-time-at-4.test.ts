/**
 * 8-byte attendance records with the time at byte 4 (u16 uid, u8 verify, u8 state, u32 time), as
 * MA300-BT, ZEM500 and Mini TA terminals keep them (fananimi/pyzk issues #56, #92, #99, #211).
 * Read with the time at byte 3 (the other 8-byte form) every punch got a wrong date.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import {
  CMD,
  decodeAttendances,
  encodeAttendance8,
  encodeAttendance8TimeAt4,
  encodeDataset,
  encodeFreeSizes,
  encodeUser72,
  type ZkAttendance,
} from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { journalFixture, zkConfig } from './helpers.js';

/** Three records published in pyzk issue #99 (a ZEM500 terminal), as the terminal sent them. */
const PUBLISHED = ['07002800a8eba71e', '7b0028004beca71e', '7b0028004eeca71e'];

const strip = (rs: ZkAttendance[]) =>
  rs.map(({ uid, verifyType, state, logTime }) => ({ uid, verifyType, state, logTime }));

describe('8-byte attendance records with the time at byte 4', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('decode the published records to their times, with the count and without it', () => {
    const want = [
      { uid: 7, verifyType: 0x28, state: 0, logTime: '2016-01-01 19:02:00' },
      { uid: 123, verifyType: 0x28, state: 0, logTime: '2016-01-01 19:04:43' },
      { uid: 123, verifyType: 0x28, state: 0, logTime: '2016-01-01 19:04:46' },
    ];
    for (const n of [1, 2, 3]) {
      const dataset = encodeDataset(PUBLISHED.slice(0, n).map((h) => Buffer.from(h, 'hex')));
      // Without the count, two records are also one 16-byte record: the count (which a poll
      // always reads first) settles it; an odd number of records needs no count.
      for (const count of n % 2 === 1 ? [n, undefined] : [n]) {
        const d = decodeAttendances(dataset, { count });
        expect(d.recordSize, `n=${n} count=${count}`).toBe(8);
        expect(d.suspectRecords).toBe(0);
        expect(strip(d.records)).toEqual(want.slice(0, n));
      }
    }
  });

  it('the time-at-3 form still reads as before', () => {
    const recs: ZkAttendance[] = [1, 2, 3].map((i) => ({
      uid: i,
      userId: String(i),
      verifyType: 1,
      state: i % 2,
      logTime: `2026-11-2${i} 08:0${i}:00`,
    }));
    for (const n of [1, 3]) {
      const d = decodeAttendances(encodeDataset(recs.slice(0, n).map(encodeAttendance8)), { count: n });
      expect(strip(d.records)).toEqual(strip(recs.slice(0, n)));
    }
  });

  it('a poll journals each punch under the user id of its index, at its time', async () => {
    const punches: ZkAttendance[] = Array.from({ length: 40 }, (_, i) => ({
      uid: 1 + (i % 3),
      userId: '',
      verifyType: 1,
      state: i % 2,
      logTime: `2026-11-${String(1 + (i % 28)).padStart(2, '0')} ${String(7 + (i % 10)).padStart(2, '0')}:${String(i).padStart(2, '0')}:00`,
    }));
    const pins = ['4001', '4002', '4003'];
    const users = encodeDataset(
      pins.map((userId, i) =>
        encodeUser72({ uid: i + 1, privilege: 0, password: '', name: `U${i}`, card: 0, group: 1, userId }),
      ),
    );
    const attendance = encodeDataset(punches.map(encodeAttendance8TimeAt4));
    const terminal: FakeTerminal = new FakeTerminal({
      transport: 'tcp',
      attendance,
      users,
      hook: (req, replies, conn) =>
        req.command === CMD.GET_FREE_SIZES
          ? [reply(req, CMD.ACK_OK, conn.sessionId, encodeFreeSizes({ users: 3, records: 40, recordCapacity: 50_000 }))]
          : replies,
    });
    const port = await terminal.start();
    const fx = journalFixture(() => Date.parse('2026-12-30T12:00:00Z'));
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port), fx.deps);
    expect(r).toMatchObject({ ok: true, records: 40, added: 40, quarantined: 0 });
    const got = fx.journal.queries
      .list()
      .map((p) => `${p.biometricCode}@${p.logTime} s${p.punchState}`)
      .sort();
    expect(got).toEqual(punches.map((a) => `${pins[a.uid - 1]}@${a.logTime} s${a.state}`).sort());
  });
});
