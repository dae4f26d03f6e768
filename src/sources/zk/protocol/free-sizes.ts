/**
 * GET_FREE_SIZES reply data (A3.1): twenty-three i32 LE, 92 bytes.
 */
import { ZkProtocolError } from './errors.js';

export interface ZkFreeSizes {
  users: number;
  fingerprints: number;
  /** Attendance records held. */
  records: number;
  oplogs: number;
  admins: number;
  passwords: number;
  fingerprintCapacity: number;
  userCapacity: number;
  /** Attendance record capacity. */
  recordCapacity: number;
  fingerprintsFree: number;
  usersFree: number;
  recordsFree: number;
  faces: number;
  faceCapacity: number;
}

const OFFSETS: Record<keyof ZkFreeSizes, number> = {
  users: 16,
  fingerprints: 24,
  records: 32,
  oplogs: 40,
  admins: 48,
  passwords: 52,
  fingerprintCapacity: 56,
  userCapacity: 60,
  recordCapacity: 64,
  fingerprintsFree: 68,
  usersFree: 72,
  recordsFree: 76,
  faces: 80,
  faceCapacity: 88,
};

export const FREE_SIZES_LENGTH = 92;
/** Up to the attendance capacity: what a usable reply must hold. */
const MIN_LENGTH = 68;

/** Fields past the end of a short (>= 68 bytes) reply read as 0. */
export function decodeFreeSizes(data: Buffer): ZkFreeSizes {
  if (data.length < MIN_LENGTH) {
    throw new ZkProtocolError(`free sizes reply of ${data.length} bytes; at least ${MIN_LENGTH} expected`);
  }
  const out = {} as ZkFreeSizes;
  for (const [k, off] of Object.entries(OFFSETS) as [keyof ZkFreeSizes, number][]) {
    out[k] = off + 4 <= data.length ? data.readInt32LE(off) : 0;
  }
  return out;
}

/** Missing fields are written as 0. */
export function encodeFreeSizes(s: Partial<ZkFreeSizes>): Buffer {
  const buf = Buffer.alloc(FREE_SIZES_LENGTH);
  for (const [k, off] of Object.entries(OFFSETS) as [keyof ZkFreeSizes, number][]) {
    buf.writeInt32LE(s[k] ?? 0, off);
  }
  return buf;
}
