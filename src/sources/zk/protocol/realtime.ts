/**
 * Real-time attendance events (A7): cmd REG_EVENT(500), session field = EF_ATTLOG, reply id 0.
 */
import { ZkProtocolError } from './errors.js';
import { readCString, writeCString } from './strings.js';
import { decodeZkTime6, encodeZkTime6 } from './time.js';

export interface ZkRealtimeAttlog {
  userId: string;
  verifyType: number;
  state: number;
  logTime: string;
}

/**
 * Decodes the data of an EF_ATTLOG event. Forms (pyzk live_capture): >= 32 bytes
 * (24-char user id, verify, state, 6-byte time, padding); 10 bytes (u16 id); 12 bytes (u32 id);
 * 14 bytes (u16 id + 4 padding).
 */
export function decodeRealtimeAttlog(data: Buffer): ZkRealtimeAttlog {
  if (data.length >= 32) {
    return {
      userId: readCString(data, 0, 24),
      verifyType: data.readUInt8(24),
      state: data.readUInt8(25),
      logTime: decodeZkTime6(data, 26),
    };
  }
  if (data.length === 12) {
    return {
      userId: String(data.readUInt32LE(0)),
      verifyType: data.readUInt8(4),
      state: data.readUInt8(5),
      logTime: decodeZkTime6(data, 6),
    };
  }
  if (data.length === 10 || data.length === 14) {
    return {
      userId: String(data.readUInt16LE(0)),
      verifyType: data.readUInt8(2),
      state: data.readUInt8(3),
      logTime: decodeZkTime6(data, 4),
    };
  }
  throw new ZkProtocolError(`real-time attendance event of ${data.length} bytes (expected 10, 12, 14 or >= 32)`);
}

/** Size of the padded TCP event (24-char user id, verify, state, 6-byte time, 20 bytes). */
const PADDED_EVENT = 52;

/**
 * Every EF_ATTLOG event in one packet's data. Firmware that pads events to 52 bytes may send
 * several in one packet: pyzk's live_capture reads them 52 bytes at a time (fananimi/pyzk
 * zk/base.py). Reading only the first would drop the others from the real-time feed.
 */
export function decodeRealtimeAttlogs(data: Buffer): ZkRealtimeAttlog[] {
  if (data.length > PADDED_EVENT && data.length % PADDED_EVENT === 0) {
    const out: ZkRealtimeAttlog[] = [];
    for (let o = 0; o < data.length; o += PADDED_EVENT)
      out.push(decodeRealtimeAttlog(data.subarray(o, o + PADDED_EVENT)));
    return out;
  }
  return [decodeRealtimeAttlog(data)];
}

/** TCP form: 32 bytes, or more with zero padding (`size` 36, 37, 52 are seen on devices). */
export function encodeRealtimeTcp(e: ZkRealtimeAttlog, size = 32): Buffer {
  const buf = Buffer.alloc(Math.max(32, size));
  writeCString(buf, e.userId, 0, 24, 'user id');
  buf.writeUInt8(e.verifyType & 0xff, 24);
  buf.writeUInt8(e.state & 0xff, 25);
  encodeZkTime6(e.logTime).copy(buf, 26);
  return buf;
}

/** UDP form: 10 bytes with a numeric u16 user id. */
export function encodeRealtimeUdp(e: ZkRealtimeAttlog): Buffer {
  const id = numericId(e.userId, 0xffff);
  const buf = Buffer.alloc(10);
  buf.writeUInt16LE(id, 0);
  buf.writeUInt8(e.verifyType & 0xff, 2);
  buf.writeUInt8(e.state & 0xff, 3);
  encodeZkTime6(e.logTime).copy(buf, 4);
  return buf;
}

export function numericId(userId: string, max: number): number {
  const n = /^\d+$/.test(userId) ? Number(userId) : NaN;
  if (!Number.isSafeInteger(n) || n > max) {
    throw new RangeError(`user id "${userId}" must be a number 0..${max} in this record form`);
  }
  return n;
}
