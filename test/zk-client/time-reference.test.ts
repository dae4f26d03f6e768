/**
 * The packed time (A6) against the decoders the field uses, transcribed here as arithmetic:
 * fananimi/pyzk zk/base.py `__decode_time` (successive % and //, year + 2000) and node-zklib 1.3.0
 * `parseTimeToDate` (the same fields, then `new Date(y, m, d, h, mi, s)` in the process's zone,
 * which moves an impossible day such as 30 February into March). Ours keeps the terminal's fields
 * and says when the day does not exist (the journal quarantines such a punch, never moves it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeZkTime, decodeZkTime6, encodeZkTime, isRealZkTime } from '../../src/sources/zk/protocol/index.js';
import { formatLogTime, isLogTime } from '../../src/punch.js';

/** pyzk's decoder, integer for integer. */
function pyzkDecode(t: number): string {
  const second = t % 60;
  t = Math.floor(t / 60);
  const minute = t % 60;
  t = Math.floor(t / 60);
  const hour = t % 24;
  t = Math.floor(t / 24);
  const day = (t % 31) + 1;
  t = Math.floor(t / 31);
  const month = (t % 12) + 1;
  t = Math.floor(t / 12);
  return formatLogTime(t + 2000, month, day, hour, minute, second);
}

/** node-zklib's fields before its Date constructor (month 0-based there). */
function nodeZklibFields(time: number): string {
  const second = time % 60;
  time = (time - second) / 60;
  const minute = time % 60;
  time = (time - minute) / 60;
  const hour = time % 24;
  time = (time - hour) / 24;
  const day = (time % 31) + 1;
  time = (time - (day - 1)) / 31;
  const month = time % 12;
  time = (time - month) / 12;
  return formatLogTime(time + 2000, month + 1, day, hour, minute, second);
}

/** pyzk's encoder. */
function pyzkEncode(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  return ((y % 100) * 12 * 31 + (mo - 1) * 31 + d - 1) * (24 * 60 * 60) + (h * 60 + mi) * 60 + s;
}

describe('the packed time against pyzk and node-zklib', () => {
  it('decodes every u32 as both do', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (u) => {
        const ours = decodeZkTime(u);
        expect(ours).toBe(pyzkDecode(u));
        expect(ours).toBe(nodeZklibFields(u));
      }),
      { numRuns: 5000 },
    );
  });

  it('encodes every real time 2000-2099 as pyzk does', () => {
    const time = fc
      .record({
        y: fc.integer({ min: 2000, max: 2099 }),
        mo: fc.integer({ min: 1, max: 12 }),
        d: fc.integer({ min: 1, max: 31 }),
        h: fc.integer({ min: 0, max: 23 }),
        mi: fc.integer({ min: 0, max: 59 }),
        s: fc.integer({ min: 0, max: 59 }),
      })
      .filter(({ y, mo, d, h, mi, s }) => isLogTime(formatLogTime(y, mo, d, h, mi, s)));
    fc.assert(
      fc.property(time, ({ y, mo, d, h, mi, s }) => {
        expect(encodeZkTime(formatLogTime(y, mo, d, h, mi, s))).toBe(pyzkEncode(y, mo, d, h, mi, s));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['2000-01-01 00:00:00', 0],
    ['2000-02-29 12:00:00', pyzkEncode(2000, 2, 29, 12, 0, 0)], // 2000 is a leap year (÷400)
    ['2024-02-29 23:59:59', pyzkEncode(2024, 2, 29, 23, 59, 59)],
    ['2026-01-31 23:59:59', pyzkEncode(2026, 1, 31, 23, 59, 59)],
    ['2026-02-01 00:00:00', pyzkEncode(2026, 2, 1, 0, 0, 0)],
    ['2026-12-31 23:59:59', pyzkEncode(2026, 12, 31, 23, 59, 59)],
    ['2099-12-31 23:59:59', 99 * 12 * 31 * 86400 + 371 * 86400 + 86399],
  ])('%s round-trips as %i', (t, u) => {
    expect(encodeZkTime(t)).toBe(u);
    expect(decodeZkTime(u)).toBe(t);
    expect(isRealZkTime(t)).toBe(true);
  });

  it('a month always has 31 slots: 30 February, 29 February 2023 and 31 April decode, and are said not real', () => {
    for (const [y, mo, d] of [
      [2026, 2, 30],
      [2023, 2, 29],
      [2026, 4, 31],
    ] as const) {
      const t = decodeZkTime(pyzkEncode(y, mo, d, 8, 0, 0));
      expect(t).toBe(formatLogTime(y, mo, d, 8, 0, 0));
      expect(isRealZkTime(t)).toBe(false);
      expect(isLogTime(t)).toBe(false); // the journal quarantines it (a reason said), never moves it
      expect(() => encodeZkTime(t)).toThrow(RangeError);
    }
  });

  it('years outside 2000-2099 are refused when encoding (the packed year is year % 100)', () => {
    expect(() => encodeZkTime('2100-01-01 00:00:00')).toThrow(RangeError);
    expect(() => encodeZkTime('1999-12-31 23:59:59')).toThrow(RangeError);
  });

  it('the 6-byte real-time form: impossible fields stay as sent (quarantined by the journal), not normalised', () => {
    expect(decodeZkTime6(Buffer.from([24, 2, 29, 23, 59, 59]))).toBe('2024-02-29 23:59:59');
    const bad = decodeZkTime6(Buffer.from([26, 2, 30, 8, 0, 0]));
    expect(bad).toBe('2026-02-30 08:00:00');
    expect(isLogTime(bad)).toBe(false);
  });
});
