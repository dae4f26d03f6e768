/**
 * ZK device times: wall-clock fields with no zone. Nothing here goes through Date or the
 * process time zone, so a punch at 02:30 on a DST-change night stays 02:30.
 */
import { formatLogTime } from '../../../punch.js';

const LOG_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

type Fields = [y: number, mo: number, d: number, h: number, mi: number, s: number];

function daysInMonth(y: number, mo: number): number {
  if (mo === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
}

function parse(logTime: string): Fields {
  const m = LOG_TIME.exec(logTime);
  const f = (m ? m.slice(1).map(Number) : []) as Fields;
  const [y, mo, d, h, mi, s] = f;
  if (!m || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
    throw new RangeError(`not a log time (YYYY-MM-DD HH:mm:ss): ${logTime}`);
  }
  if (y < 2000 || y > 2099) throw new RangeError(`ZK terminals store years 2000-2099 only: ${logTime}`);
  return f;
}

/**
 * Fast check of a string made by decodeZkTime: its fields are always in range except that the day
 * may not exist in that month (a packed value for 31 February decodes, but is no real time).
 */
export function isRealZkTime(logTime: string): boolean {
  const y = Number(logTime.slice(0, 4));
  const mo = Number(logTime.slice(5, 7));
  const d = Number(logTime.slice(8, 10));
  return d <= daysInMonth(y, mo);
}

/** Packed u32 -> `YYYY-MM-DD HH:mm:ss` (A6: successive % 60, % 60, % 24, % 31, % 12). */
export function decodeZkTime(u32: number): string {
  let t = u32 >>> 0;
  const s = t % 60;
  t = Math.floor(t / 60);
  const mi = t % 60;
  t = Math.floor(t / 60);
  const h = t % 24;
  t = Math.floor(t / 24);
  const d = (t % 31) + 1;
  t = Math.floor(t / 31);
  const mo = (t % 12) + 1;
  const y = Math.floor(t / 12) + 2000;
  return formatLogTime(y, mo, d, h, mi, s);
}

/** `YYYY-MM-DD HH:mm:ss` (years 2000-2099) -> packed u32. */
export function encodeZkTime(logTime: string): number {
  const [y, mo, d, h, mi, s] = parse(logTime);
  return (((y % 100) * 12 * 31 + (mo - 1) * 31 + (d - 1)) * 86400 + (h * 60 + mi) * 60 + s) >>> 0;
}

/** Real-time 6-byte form `[Y-2000, M, D, h, m, s]` -> `YYYY-MM-DD HH:mm:ss`. */
export function decodeZkTime6(buf: Buffer, offset = 0): string {
  if (buf.length < offset + 6) throw new RangeError(`6-byte ZK time needs ${offset + 6} bytes, got ${buf.length}`);
  const b = (i: number) => buf[offset + i] as number;
  return formatLogTime(2000 + b(0), b(1), b(2), b(3), b(4), b(5));
}

export function encodeZkTime6(logTime: string): Buffer {
  const [y, mo, d, h, mi, s] = parse(logTime);
  return Buffer.from([y - 2000, mo, d, h, mi, s]);
}
