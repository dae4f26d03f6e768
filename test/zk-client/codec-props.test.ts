import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeAttendances,
  decodeUsers,
  decodeZkTime,
  encodeAttendance16,
  encodeAttendance8,
  encodeAttendance40,
  encodeDataset,
  encodePacket,
  encodeUser72,
  encodeZkTime,
  TcpFramer,
  wrapTcp,
  type ZkAttendance,
} from '../../src/sources/zk/protocol/index.js';
import { formatLogTime, isLogTime } from '../../src/punch.js';

const logTime = fc
  .record({
    y: fc.integer({ min: 2000, max: 2099 }),
    mo: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 31 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
  })
  .map(({ y, mo, d, h, mi, s }) => formatLogTime(y, mo, d, h, mi, s))
  .filter(isLogTime);

/** No C0 control characters and no DEL (what a plausible id looks like). */
const noControl = (s: string) => [...s].every((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f' && c !== '\ufffd');

/** Strings whose UTF-8 form fits `max` bytes, without NUL. */
const cstring = (max: number, minLength = 0) =>
  fc
    .string({ unit: 'grapheme', minLength, maxLength: max })
    .filter((s) => !s.includes('\0') && Buffer.byteLength(s) <= max);

const attendance40 = fc.record({
  uid: fc.integer({ min: 0, max: 0xffff }),
  userId: cstring(24, 1).filter((s) => s.trim().length > 0 && noControl(s)),
  verifyType: fc.integer({ min: 0, max: 255 }),
  state: fc.integer({ min: 0, max: 255 }),
  logTime,
  workCode: fc.integer({ min: 0, max: 0xffffffff }),
});

const attendance16 = fc.record({
  uid: fc.constant(0),
  userId: fc.integer({ min: 1, max: 99_999_999 }).map(String),
  verifyType: fc.integer({ min: 0, max: 255 }),
  state: fc.integer({ min: 0, max: 255 }),
  logTime,
  workCode: fc.integer({ min: 0, max: 0xffffffff }),
});

/**
 * What a real log holds: times after 2000 (no terminal kept a log then), states 0-5 plus a few,
 * verify types below 32, small work codes. A size guessed from the data (no record count) is
 * promised only for such logs: random bytes of one size can look like records of another.
 */
const realTime = logTime.filter((t) => t >= '2001');
const attendance16Real = fc.record({
  uid: fc.constant(0),
  userId: fc.integer({ min: 1, max: 99_999_999 }).map(String),
  verifyType: fc.integer({ min: 0, max: 31 }),
  state: fc.integer({ min: 0, max: 15 }),
  logTime: realTime,
  workCode: fc.integer({ min: 0, max: 9999 }),
});
const attendance8 = fc.record({
  uid: fc.integer({ min: 1, max: 0xffff }),
  verifyType: fc.integer({ min: 0, max: 31 }),
  state: fc.integer({ min: 0, max: 15 }),
  logTime: realTime,
});

describe('codec properties', () => {
  it('time: encode/decode round-trip for every calendar time 2000-2099', () => {
    fc.assert(fc.property(logTime, (t) => decodeZkTime(encodeZkTime(t)) === t));
  });

  it('time: decoding a valid packed value and encoding it again gives the same value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 12 * 31 * 86400 - 1 }), (u) => {
        const t = decodeZkTime(u);
        if (isLogTime(t)) expect(encodeZkTime(t)).toBe(u);
      }),
    );
  });

  it('users: 72-byte records round-trip through a dataset', () => {
    const user = fc.record({
      uid: fc.integer({ min: 0, max: 0xffff }),
      privilege: fc.integer({ min: 0, max: 255 }),
      password: cstring(8),
      name: cstring(24),
      card: fc.integer({ min: 0, max: 0xffffffff }),
      group: fc.integer({ min: 0, max: 255 }),
      userId: cstring(24, 1).filter(noControl),
    });
    fc.assert(
      fc.property(fc.array(user, { maxLength: 30 }), (users) => {
        const d = decodeUsers(encodeDataset(users.map(encodeUser72)), { recordSize: 72 });
        expect(d.records).toEqual(users);
      }),
    );
  });

  it('attendance: 40-, 16- and 8-byte datasets decode to the same records, record size found from the data', () => {
    const check = (recs: ZkAttendance[], enc: (a: ZkAttendance) => Buffer, size: number, count?: number) => {
      const d = decodeAttendances(encodeDataset(recs.map((r) => enc(r))), { count });
      expect(d.records).toEqual(recs);
      if (recs.length > 0) expect(d.recordSize).toBe(size);
      expect(d.malformedBytes).toBe(0);
    };
    fc.assert(fc.property(fc.array(attendance40, { maxLength: 40 }), (recs) => check(recs, encodeAttendance40, 40)));
    fc.assert(
      fc.property(fc.array(attendance16Real, { maxLength: 40 }), (recs) => check(recs, encodeAttendance16, 16)),
    );
    // Any bytes in the other fields: the record count the terminal announced settles the size
    // while at least half its records have a time after 2000. (A log whose records mostly do not
    // look real yields to a size that reads the same bytes as records that all do: a terminal
    // that announces more records than it hands over; codec.test.ts.)
    const mostlyAfter2000 = (recs: ZkAttendance[]) => recs.filter((r) => r.logTime >= '2001').length * 2 >= recs.length;
    fc.assert(
      fc.property(fc.array(attendance16, { maxLength: 40 }).filter(mostlyAfter2000), (recs) =>
        check(recs, encodeAttendance16, 16, recs.length),
      ),
    );
    // 8-byte logs, like pyzk, by the announced count; also when punches came in between the
    // count and the download (the log grew, by less than it held), whatever the bytes look like.
    const as8 = (recs: Omit<ZkAttendance, 'userId'>[]) => recs.map((r) => ({ ...r, userId: String(r.uid) }));
    fc.assert(
      fc.property(fc.array(attendance8, { minLength: 1, maxLength: 40 }), fc.nat(), (recs, seen) =>
        check(as8(recs), encodeAttendance8, 8, recs.length - (seen % Math.ceil(recs.length / 2))),
      ),
    );
  });

  it('attendance: a malformed tail or a truncated dataset is counted, never thrown', () => {
    fc.assert(
      fc.property(
        fc.array(attendance40, { minLength: 1, maxLength: 10 }),
        fc.uint8Array({ minLength: 1, maxLength: 39 }),
        fc.boolean(),
        (recs, junk, cut) => {
          const full = encodeDataset(recs.map(encodeAttendance40));
          const data = cut ? full.subarray(0, full.length - junk.length) : Buffer.concat([full, junk]);
          const d = decodeAttendances(data, { count: recs.length });
          expect(d.recordSize).toBe(40);
          expect(d.records).toEqual(cut ? recs.slice(0, recs.length - 1) : recs);
          expect(d.malformedBytes).toBe(cut ? 40 - junk.length : junk.length);
        },
      ),
    );
    expect(decodeAttendances(Buffer.from([1, 2])).records).toEqual([]);
  });

  it('attendance: records with an impossible date are kept and counted, not dropped', () => {
    const good = encodeAttendance40({ uid: 1, userId: '7', verifyType: 1, state: 0, logTime: '2024-02-28 10:00:00' });
    const bad = Buffer.from(good);
    bad.writeUInt32LE(encodeZkTime('2024-02-28 10:00:00') + 2 * 86400, 27); // "2024-02-30"
    const d = decodeAttendances(encodeDataset([good, bad]), { count: 2 });
    expect(d.records.map((r) => r.logTime)).toEqual(['2024-02-28 10:00:00', '2024-02-30 10:00:00']);
    expect(d.suspectRecords).toBe(1);
  });

  it('framer: packets come out whole however the stream is split or coalesced, garbage is skipped', () => {
    const packet = fc.record({
      command: fc.integer({ min: 0, max: 0xffff }),
      sessionId: fc.integer({ min: 0, max: 0xffff }),
      replyId: fc.integer({ min: 0, max: 0xffff }),
      data: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
    });
    // Garbage without 0x50 cannot contain the magic.
    const garbage = fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a.map((b) => (b === 0x50 ? 0x51 : b))));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(packet, garbage), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 50 }),
        (items, cuts) => {
          const packets = items.map(([p]) => encodePacket(p));
          const stream = Buffer.concat(items.flatMap(([, g], i) => [g, wrapTcp(packets[i]!)]));
          const framer = new TcpFramer();
          const out: Buffer[] = [];
          let pos = 0;
          for (let i = 0; pos < stream.length; i++) {
            const n = cuts[i % cuts.length]!;
            out.push(...framer.push(stream.subarray(pos, pos + n)));
            pos += n;
          }
          expect(out).toEqual(packets);
          expect(framer.skippedBytes).toBe(items.reduce((s, [, g]) => s + g.length, 0));
          expect(framer.bufferedBytes).toBe(0);
        },
      ),
    );
  });

  it('framer: an absurd length is treated as garbage (maxPacket guard)', () => {
    const framer = new TcpFramer({ maxPacket: 1000 });
    const bad = Buffer.from([0x50, 0x50, 0x82, 0x7d, 0xff, 0xff, 0xff, 0x7f]);
    const good = wrapTcp(encodePacket({ command: 2000, sessionId: 1, replyId: 2 }));
    expect(framer.push(Buffer.concat([bad, good]))).toEqual([good.subarray(8)]);
    expect(framer.skippedBytes).toBe(8);
  });
});
