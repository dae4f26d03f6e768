/**
 * Attendance logs and real-time events with the bytes published from real terminals (each named
 * where it was published), rebuilt here and read through the real poll into a real journal: the
 * punches in the capture are journalled once each, at the terminal's time, and a log that cannot
 * be read is never turned into made-up punches in silence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import {
  CMD,
  decodeRealtimeAttlogs,
  encodeAttendance40,
  encodeDataset,
  encodeFreeSizes,
} from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function poll(attendance: Buffer, records: number) {
  const terminal = new FakeTerminal({
    transport: 'tcp',
    attendance,
    hook: (req, replies, conn) =>
      req.command === CMD.GET_FREE_SIZES
        ? [reply(req, CMD.ACK_OK, conn.sessionId, encodeFreeSizes({ users: 1, records, recordCapacity: 50_000 }))]
        : replies,
  });
  const port = await terminal.start();
  const fx = journalFixture(() => Date.parse('2026-12-30T12:00:00Z'));
  cleanups.push(() => terminal.stop(), fx.cleanup);
  return { result: await pollTerminal(zkConfig(port), fx.deps), fx };
}

describe('ZK attendance as published captures show it', () => {
  it('a 40-byte record with a string user id (fananimi/pyzk#139): journalled as user 10036 at 2021-10-24 13:42:16', async () => {
    // The record as printed in the issue: uid 1, "10036", verify 15 (face), packed time 0x29c9ebb8.
    const published = Buffer.from(
      '0100' + Buffer.from('10036').toString('hex') + '00'.repeat(19) + '0f' + 'b8ebc929' + '00' + '00'.repeat(8),
      'hex',
    );
    expect(published).toHaveLength(40);
    // Two more punches of ours behind it, so that the log is read as a log, not a lone record.
    const more = [
      { uid: 2, userId: 'A-77', verifyType: 1, state: 1, logTime: '2021-10-24 17:05:00' },
      { uid: 1, userId: '10036', verifyType: 15, state: 1, logTime: '2021-10-24 18:00:59' },
    ].map(encodeAttendance40);
    const { result, fx } = await poll(encodeDataset([published, ...more]), 3);
    expect(result).toMatchObject({ ok: true, records: 3, added: 3, quarantined: 0 });
    expect(journalKeys(fx.journal)).toEqual([
      '10036@2021-10-24 13:42:16',
      '10036@2021-10-24 18:00:59',
      'A-77@2021-10-24 17:05:00',
    ]);
    const first = fx.journal.queries.list().find((p) => p.logTime === '2021-10-24 13:42:16');
    expect(first).toMatchObject({ verifyType: 15, punchState: 0 });
  });

  it('a K40 log no layout reads (bulentv/js_zklib#53: 120 bytes for 3 punches): nothing made up is journalled, every record accounted', async () => {
    // The dataset's bytes as published in the TCP stream (the reply to ATTLOG_RRQ, 124
    // bytes: the size 0x78, then 120 bytes). The terminal showed 3 punches of user 3 on 2018-11-04;
    // the bytes hold no such record in any layout known (they read as user ids of control bytes
    // and times in the year 2000).
    const body =
      '40d835802f330100d5dc0100df230100c9010200cb140100d1260200e50901004b4d0200c3fe0000b173020085f10000' +
      '6d99020047e4000029bf020061d90000a3e5020019d10000c70c030001cc00005f2c0300d802000018000000160000000a' +
      '0000009a19000001340300f00200004800000000280300';
    const dataset = Buffer.concat([Buffer.from('78000000', 'hex'), Buffer.from(body, 'hex')]);
    expect(dataset).toHaveLength(124);
    const { result, fx } = await poll(dataset, 3);
    // No punch of a user made of control bytes: every record is refused or quarantined, counted.
    const codes = fx.journal.queries.list().map((p) => p.biometricCode);
    // eslint-disable-next-line no-control-regex
    expect(codes.filter((c) => /[\u0000-\u001f\u007f\ufffd]/.test(c))).toEqual([]);
    expect(result).toMatchObject({ records: 3, added: 0, badCodes: 3 });
  });
});

describe('ZK real-time events as published captures show them', () => {
  it('the 32-byte event of a ZEM600 terminal (kurenai-ryu/pyzk#8): user 1140064, face, 2018-11-29 12:55:03', () => {
    const published = Buffer.from('3131343030363400000000000000000000000000000000000f00120b1d0c3703', 'hex');
    expect(decodeRealtimeAttlogs(published)).toEqual([
      { userId: '1140064', verifyType: 15, state: 0, logTime: '2018-11-29 12:55:03' },
    ]);
  });
});
