/**
 * Real-time attendance events (A7): cmd REG_EVENT(500), session field = EF_ATTLOG, reply id 0.
 */
import { ZkProtocolError } from './errors.js';
import { isLogTime } from '../../../punch.js';
import { isPrintable, readCString, writeCString } from './strings.js';
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

/**
 * The sizes of one TCP event as terminals pad it (fananimi/pyzk zk/base.py live_capture: 52, 37,
 * 36 and 32 bytes: 24-char user id, verify, state, 6-byte time, then padding).
 */
const TCP_EVENT_SIZES = [52, 37, 36, 32];

/** The sizes of one UDP event (10, 12, 14 bytes: a numeric user id), tried after the TCP sizes. */
const UDP_EVENT_SIZES = [10, 12, 14];

/**
 * Every EF_ATTLOG event in one packet's data. A terminal may send several events in one packet:
 * pyzk's live_capture loops over the data for that reason (52 bytes at a time). Reading only the
 * first left the others to the next poll, minutes later; several UDP events in one datagram were
 * dropped as malformed, none read. The data is taken as events of one size only when it is a
 * whole number of them and each slice is an event (a user id of printable characters, a real
 * time): zero padding after a single event is no second one.
 */
export function decodeRealtimeAttlogs(data: Buffer): ZkRealtimeAttlog[] {
  for (const size of [...TCP_EVENT_SIZES, ...UDP_EVENT_SIZES]) {
    if (data.length <= size || data.length % size !== 0) continue;
    const events: ZkRealtimeAttlog[] = [];
    for (let o = 0; o < data.length; o += size) events.push(decodeRealtimeAttlog(data.subarray(o, o + size)));
    if (events.every(looksLikeEvent)) return events;
  }
  // Events padded differently in one packet (a 32-byte one, then a 52-byte one): before, only the
  // first was read live and the rest dropped without a word until the next poll.
  if (data.length > TCP_EVENT_SIZES[0]!) {
    const mixed = tcpEventsFrom(data, 0, MAX_EVENTS_PER_PACKET, new Set());
    if (mixed && mixed.length > 1) return mixed;
  }
  return [decodeRealtimeAttlog(data)];
}

/** A packet holds at most ~1 kB of events (pyzk reads 1032 bytes): 32 of the smallest. */
const MAX_EVENTS_PER_PACKET = 32;

/**
 * The TCP events from `o` to the end, each of any padded size, each slice an event, and nothing
 * after the last but zero bytes; null when the bytes make no such sequence. Tries the largest size
 * first (as pyzk does), then the others. `failed` remembers offsets that led nowhere, so that
 * bytes a hostile device shaped to look like events at every size cost linear time, not 4^n.
 */
function tcpEventsFrom(data: Buffer, o: number, budget: number, failed: Set<number>): ZkRealtimeAttlog[] | null {
  if (o >= data.length || data.subarray(o).every((b) => b === 0)) return [];
  if (budget === 0 || failed.has(o)) return null;
  for (const size of TCP_EVENT_SIZES) {
    if (o + size > data.length) continue;
    const event = decodeRealtimeAttlog(data.subarray(o, o + size));
    if (!looksLikeEvent(event)) continue;
    const rest = tcpEventsFrom(data, o + size, budget - 1, failed);
    if (rest) return [event, ...rest];
  }
  failed.add(o);
  return null;
}

function looksLikeEvent(e: ZkRealtimeAttlog): boolean {
  return e.userId !== '' && isPrintable(e.userId) && isLogTime(e.logTime);
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
