import { describe, expect, it } from 'vitest';
import {
  CMD,
  EF,
  MAX_CHUNK,
  TCP_MAGIC,
  ZkProtocolError,
  decodeAttendance16,
  decodeAttendance8,
  decodeAttendances,
  encodeAttendance8,
  encodeDataset,
  withUserIds,
  decodeAttendance40,
  decodeFreeSizes,
  decodePacket,
  decodeRealtimeAttlog,
  decodeUser28,
  decodeUser72,
  decodeZkTime,
  decodeZkTime6,
  encodeAttendance16,
  encodeAttendance40,
  encodeFreeSizes,
  encodePacket,
  encodeRealtimeTcp,
  encodeRealtimeUdp,
  encodeUser28,
  encodeUser72,
  encodeZkTime,
  encodeZkTime6,
  makeCommKey,
  wrapTcp,
  zkChecksum,
} from '../../src/sources/zk/protocol/index.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('constants', () => {
  it('match the reference values', () => {
    expect(CMD.DATA_RDY).toBe(1504);
    expect(CMD.ACK_UNAUTH).toBe(2005);
    expect(CMD.ACK_ERROR_DATA).toBe(0xfffb);
    expect(EF.ATTLOG).toBe(1);
    expect(MAX_CHUNK).toBe(0xffc0);
    expect(TCP_MAGIC).toEqual(hex('5050827d'));
  });
});

describe('zkChecksum', () => {
  it('matches the device vectors (A1)', () => {
    expect(zkChecksum(hex('0b00 0000 f38d 0300 5a4b4661636556657273696f6e00'))).toBe(0x175a);
    expect(zkChecksum(hex('d007 0000 f38d 0a00 09'))).toBe(0x6a29);
  });

  it('is what encodePacket writes', () => {
    const p = encodePacket({ command: 11, sessionId: 0x8df3, replyId: 3, data: Buffer.from('ZKFaceVersion\0') });
    expect(p.readUInt16LE(2)).toBe(0x175a);
    const d = decodePacket(p);
    expect(d).toMatchObject({ command: 11, checksum: 0x175a, sessionId: 0x8df3, replyId: 3 });
    expect(d.data.toString()).toBe('ZKFaceVersion\0');
  });
});

describe('packets', () => {
  it('decodePacket rejects less than a header', () => {
    expect(() => decodePacket(Buffer.alloc(7))).toThrow(ZkProtocolError);
  });

  it('wrapTcp puts the magic and the u32 length in front', () => {
    const w = wrapTcp(encodePacket({ command: CMD.ACK_OK, sessionId: 1, replyId: 2, data: Buffer.from([9, 9]) }));
    expect(w.subarray(0, 4)).toEqual(TCP_MAGIC);
    expect(w.readUInt32LE(4)).toBe(10);
    expect(w.length).toBe(18);
  });
});

describe('time', () => {
  it('decodes the reference vectors', () => {
    expect(decodeZkTime(0x2368b131)).toBe('2018-06-25 17:41:05');
    expect(decodeZkTime(0x2368b36b)).toBe('2018-06-25 17:50:35');
    expect(encodeZkTime('2018-06-25 17:41:05')).toBe(0x2368b131);
  });

  it('decodes the 6-byte real-time form', () => {
    expect(decodeZkTime6(hex('12 06 19 11 29 05'))).toBe('2018-06-25 17:41:05');
    expect(decodeZkTime6(hex('ff ff 12 06 19 11 29 05'), 2)).toBe('2018-06-25 17:41:05');
    expect(encodeZkTime6('2018-06-25 17:41:05')).toEqual(hex('12 06 19 11 29 05'));
  });

  it('rejects what a terminal cannot store', () => {
    expect(() => encodeZkTime('2018-02-30 00:00:00')).toThrow(RangeError);
    expect(() => encodeZkTime('1999-12-31 23:59:59')).toThrow(RangeError);
    expect(() => encodeZkTime('2018-06-25T17:41:05')).toThrow(RangeError);
  });
});

describe('makeCommKey', () => {
  it('matches the pyzk vectors (session 0x45CF)', () => {
    expect(makeCommKey(12, 0x45cf)).toEqual(hex('61 4d 32 3c'));
    expect(makeCommKey(45, 0x45cf)).toEqual(hex('61 c9 32 3c'));
  });

  it('puts the ticks in byte 2 and wraps the key + session sum', () => {
    expect(makeCommKey(12, 0x45cf, 7)[2]).toBe(7);
    expect(makeCommKey(0xffffffff, 0xffff).length).toBe(4);
  });
});

describe('records', () => {
  it('keeps full 24-byte user ids and UTF-8 names', () => {
    const u = {
      uid: 7,
      privilege: 14,
      password: '1234',
      name: 'Zoë Müller-Łukasiew',
      card: 123456,
      group: 1,
      userId: 'ABCDEFGHIJKLMNOPQRSTUVWX',
    };
    const b = encodeUser72(u);
    expect(b.length).toBe(72);
    expect(decodeUser72(b)).toEqual(u);
  });

  it('cuts a too long display name at a character boundary', () => {
    const u = { uid: 7, privilege: 0, password: '', name: 'Zoë Müller-Łukasiewiczowa', card: 0, group: 0, userId: '1' };
    expect(decodeUser72(encodeUser72(u)).name).toBe('Zoë Müller-Łukasiewic');
    expect(decodeUser72(encodeUser72({ ...u, name: 'x'.repeat(23) + 'ł' })).name).toBe('x'.repeat(23));
  });

  it('28-byte users carry a numeric id', () => {
    const u = { uid: 3, privilege: 0, password: '12', name: 'Bob', card: 5, group: 1, userId: '4000000000' };
    expect(decodeUser28(encodeUser28(u))).toEqual(u);
    expect(() => encodeUser28({ ...u, userId: 'A1' })).toThrow(RangeError);
  });

  it('refuses to cut a too long field instead of corrupting it', () => {
    expect(() =>
      encodeUser72({ uid: 1, privilege: 0, password: '', name: '', card: 0, group: 0, userId: 'X'.repeat(25) }),
    ).toThrow(/24/);
  });

  it('attendance 40 matches the capture layout', () => {
    const a = { uid: 1, userId: '1005', verifyType: 1, state: 0, logTime: '2018-06-25 17:41:05', workCode: 0 };
    const b = encodeAttendance40(a);
    expect(b.readUInt32LE(27)).toBe(0x2368b131);
    expect(b.subarray(32)).toEqual(hex('00000000ff000000'));
    expect(decodeAttendance40(b)).toEqual(a);
  });

  it('attendance 16 round-trips', () => {
    const a = { uid: 0, userId: '1005', verifyType: 2, state: 1, logTime: '2024-03-31 02:30:00', workCode: 9 };
    expect(decodeAttendance16(encodeAttendance16(a))).toEqual(a);
    expect(decodeAttendance16(encodeAttendance16(a, 9), 0, 9)).toEqual(a);
  });

  it('attendance 16 keeps the state in byte 8, the verify type in byte 9 (ZKTeco TExtendAttLog)', () => {
    // The record as old firmware (Ver 6.60 2015, AttLogExtendFormat) sends it, laid out by
    // ZKTeco's own struct (ZEM200 flashdb.h; the standalone SDK's "Communication protocol
    // manual": U32 PIN, time_t time_second, BYTE status, BYTE verified, BYTE reserved[2], U32
    // workcode): PIN 1005, 2018-06-25 17:41:05 (0x2368B131, the capture's packed time), status 1
    // (check-out), verified 1 (finger), work code 0. pyzk unpacks these bytes as `<I4sBB2sI`.
    const record = hex('ed030000 31b16823 01 01 0000 00000000');
    expect(decodeAttendance16(record)).toEqual({
      uid: 0,
      userId: '1005',
      logTime: '2018-06-25 17:41:05',
      state: 1,
      verifyType: 1,
      workCode: 0,
    });
    // Break-out (2) by card (4): the state is byte 8 whatever byte 9 holds.
    const breakOut = hex('ed030000 31b16823 02 04 0000 00000000');
    expect(decodeAttendance16(breakOut)).toMatchObject({ state: 2, verifyType: 4 });
    // Firmware that keeps them the other way round (stateByte: 9).
    expect(decodeAttendance16(breakOut, 0, 9)).toMatchObject({ state: 4, verifyType: 2 });
  });

  it('attendance 16 as a Ver 6.60 (Aug 17 2015) terminal sent it: mornings check-in, afternoons check-out', () => {
    // Records from a buffer published in bulentv/js_zklib issue #50 ("Attendance parser v6.60
    // returning incorrect values", firmware 6.60 Aug 17 2015), cut at record boundaries: user 21
    // at 07:31:56, 16 at 07:34:45, then 22 at 15:15:17 and 21 at 15:35:01 with byte 8 = 1.
    const records = [
      '15000000ec154f230000000000000000',
      '1000000095164f230000000000000000',
      '1600000085824f230100000000000000',
      '1500000025874f230100000000000000',
    ].map(hex);
    const d = decodeAttendances(encodeDataset(records), { count: 4 });
    expect(d.recordSize).toBe(16);
    expect(d.records.map((r) => [r.userId, r.logTime, r.state])).toEqual([
      ['21', '2018-06-06 07:31:56', 0],
      ['16', '2018-06-06 07:34:45', 0],
      ['22', '2018-06-06 15:15:17', 1],
      ['21', '2018-06-06 15:35:01', 1],
    ]);
    // Read with the state in byte 9 (as punchgate did), every one of them was a check-in.
    expect(decodeAttendances(encodeDataset(records), { count: 4, stateByte: 9 }).records.map((r) => r.state)).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it('attendance 8 (black-and-white firmware, ZKTeco TAttLog; pyzk HB4sB) names the user by index', () => {
    // U16 PIN (internal index 3), BYTE verified 1, time_t 2018-06-25 17:41:05, BYTE status 1 (out).
    const record = hex('0300 01 31b16823 01');
    expect(decodeAttendance8(record)).toEqual({
      uid: 3,
      userId: '3',
      verifyType: 1,
      logTime: '2018-06-25 17:41:05',
      state: 1,
    });
    expect(encodeAttendance8(decodeAttendance8(record))).toEqual(record);
    // Two of them, the count announced by GET_FREE_SIZES (as pyzk: size / count = 8).
    const d = decodeAttendances(encodeDataset([record, hex('0700 00 6bb36823 00')]), { count: 2 });
    expect(d.recordSize).toBe(8);
    const named = withUserIds(d.records, [
      { uid: 3, userId: '1005' },
      { uid: 9, userId: '77' },
    ]);
    expect(named.map((r) => [r.userId, r.logTime, r.state])).toEqual([
      ['1005', '2018-06-25 17:41:05', 1],
      ['7', '2018-06-25 17:50:35', 0], // index 7 is not in the user list: kept as the index
    ]);
  });

  it('a record count that does not fit yields to records that all look real (found by an adversarial trial)', () => {
    const at = (userId: string, logTime: string) =>
      encodeAttendance40({ uid: 1, userId, verifyType: 1, state: 0, logTime });
    // Two 40-byte records announced as five: 80 bytes, five 16-byte records by the count.
    const forty = decodeAttendances(
      encodeDataset([at('4001', '2026-11-20 08:00:00'), at('4002', '2026-11-20 08:05:00')]),
      { count: 5 },
    );
    expect(forty.recordSize).toBe(40);
    expect(forty.records.map((r) => `${r.userId}@${r.logTime}`)).toEqual([
      '4001@2026-11-20 08:00:00',
      '4002@2026-11-20 08:05:00',
    ]);
    // An 8-byte log announced as one record, downloaded as two (a punch came in meanwhile).
    const eight = decodeAttendances(encodeDataset([hex('0300 01 31b16823 01'), hex('0700 00 6bb36823 00')]), {
      count: 1,
    });
    expect(eight.recordSize).toBe(8);
    expect(eight.records.map((r) => r.uid)).toEqual([3, 7]);
    // A 16-byte log of a clock reset to 2000 keeps the size its count names: the other reading
    // is not all real records.
    const reset = [0, 1].map((i) =>
      encodeAttendance16({
        uid: 0,
        userId: String(10 + i),
        verifyType: 1,
        state: 0,
        logTime: '2000-01-01 00:0' + i + ':00',
        workCode: 0,
      }),
    );
    expect(decodeAttendances(encodeDataset(reset), { count: 2 }).recordSize).toBe(16);
  });
});

describe('real-time events', () => {
  it('decodes the TCP 32-byte form and padded forms', () => {
    const e = { userId: '123456789012345678901234', verifyType: 1, state: 3, logTime: '2018-06-25 17:41:05' };
    const b = encodeRealtimeTcp(e);
    expect(b.length).toBe(32);
    expect(b.subarray(26)).toEqual(hex('12 06 19 11 29 05'));
    expect(decodeRealtimeAttlog(b)).toEqual(e);
    expect(decodeRealtimeAttlog(encodeRealtimeTcp(e, 52))).toEqual(e);
  });

  it('decodes the UDP 10-byte form with its full u16 id', () => {
    const e = { userId: '1005', verifyType: 1, state: 0, logTime: '2018-06-25 17:41:05' };
    const b = encodeRealtimeUdp(e);
    expect(b).toEqual(hex('ed03 01 00 12 06 19 11 29 05'));
    expect(decodeRealtimeAttlog(b)).toEqual(e);
  });

  it('rejects an unknown length with a protocol error', () => {
    expect(() => decodeRealtimeAttlog(Buffer.alloc(20))).toThrow(ZkProtocolError);
  });
});

describe('free sizes', () => {
  it('uses the A3.1 offsets', () => {
    const b = encodeFreeSizes({ users: 12, records: 3000, userCapacity: 1000, recordCapacity: 100000, faces: 4 });
    expect(b.length).toBe(92);
    expect(b.readInt32LE(16)).toBe(12);
    expect(b.readInt32LE(32)).toBe(3000);
    expect(b.readInt32LE(64)).toBe(100000);
    expect(decodeFreeSizes(b)).toMatchObject({
      users: 12,
      records: 3000,
      userCapacity: 1000,
      recordCapacity: 100000,
      faces: 4,
    });
    expect(decodeFreeSizes(b.subarray(0, 68))).toMatchObject({ records: 3000, faces: 0 });
    expect(() => decodeFreeSizes(Buffer.alloc(8))).toThrow(ZkProtocolError);
  });
});
