/**
 * ZK packets: the 8-byte header (command, checksum, session id, reply id) + data,
 * the TCP prefix (magic + u32 length) and a length-based TCP stream framer.
 */
import { zkChecksum } from './checksum.js';
import { HEADER_SIZE, TCP_MAGIC, TCP_PREFIX_SIZE } from './constants.js';
import { ZkProtocolError } from './errors.js';

export interface ZkPacket {
  command: number;
  checksum: number;
  /** Session id; in a real-time event packet, the event code (EF_*). */
  sessionId: number;
  replyId: number;
  data: Buffer;
}

export interface ZkPacketFields {
  command: number;
  sessionId: number;
  replyId: number;
  data?: Buffer;
}

/** Header + data with the device checksum filled in (no TCP prefix). */
export function encodePacket(p: ZkPacketFields): Buffer {
  const data = p.data ?? Buffer.alloc(0);
  const buf = Buffer.alloc(HEADER_SIZE + data.length);
  buf.writeUInt16LE(p.command & 0xffff, 0);
  buf.writeUInt16LE(0, 2);
  buf.writeUInt16LE(p.sessionId & 0xffff, 4);
  buf.writeUInt16LE(p.replyId & 0xffff, 6);
  data.copy(buf, HEADER_SIZE);
  buf.writeUInt16LE(zkChecksum(buf), 2);
  return buf;
}

/** Parses header + data (no TCP prefix). The checksum is reported, not verified (clients never check it). */
export function decodePacket(buf: Buffer): ZkPacket {
  if (buf.length < HEADER_SIZE) {
    throw new ZkProtocolError(`ZK packet too short: ${buf.length} bytes, the header alone is ${HEADER_SIZE}`);
  }
  return {
    command: buf.readUInt16LE(0),
    checksum: buf.readUInt16LE(2),
    sessionId: buf.readUInt16LE(4),
    replyId: buf.readUInt16LE(6),
    data: buf.subarray(HEADER_SIZE),
  };
}

/** Prefixes a packet with the TCP magic and its u32 LE length. */
export function wrapTcp(packet: Buffer): Buffer {
  const prefix = Buffer.alloc(TCP_PREFIX_SIZE);
  TCP_MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(packet.length, 4);
  return Buffer.concat([prefix, packet]);
}

/** Default guard: far above the largest legitimate packet (65472 + 8), far below memory trouble. */
export const DEFAULT_MAX_PACKET = 1 << 20;

/**
 * Cuts a TCP byte stream into whole ZK packets (returned without the 8-byte TCP prefix),
 * however the bytes were split or coalesced by the network.
 *
 * Garbage (bad magic, a length below the header size or above `maxPacket`) is skipped by
 * scanning for the next magic; the number of bytes thrown away is in `skippedBytes`.
 */
export class TcpFramer {
  readonly maxPacket: number;
  /** Bytes discarded while resynchronising on the magic. */
  skippedBytes = 0;
  private pending: Buffer[] = [];
  private pendingLen = 0;
  /** Bytes needed before it is worth looking again (avoids re-joining on every small chunk). */
  private need = TCP_PREFIX_SIZE;

  constructor(options: { maxPacket?: number } = {}) {
    this.maxPacket = options.maxPacket ?? DEFAULT_MAX_PACKET;
  }

  /** Bytes held back waiting for the rest of a packet. */
  get bufferedBytes(): number {
    return this.pendingLen;
  }

  /** True while the bytes held begin with a valid packet header and the rest of that packet is awaited. */
  get midPacket(): boolean {
    return this.need > TCP_PREFIX_SIZE;
  }

  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.pending.push(chunk);
      this.pendingLen += chunk.length;
    }
    if (this.pendingLen < this.need) return [];
    let buf = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingLen);
    const out: Buffer[] = [];
    this.need = TCP_PREFIX_SIZE;
    while (buf.length >= TCP_PREFIX_SIZE) {
      if (!startsWithMagic(buf)) {
        buf = this.resync(buf, 1);
        continue;
      }
      const len = buf.readUInt32LE(4);
      if (len < HEADER_SIZE || len > this.maxPacket) {
        buf = this.resync(buf, 1);
        continue;
      }
      const total = TCP_PREFIX_SIZE + len;
      if (buf.length < total) {
        this.need = total;
        break;
      }
      // Copy so that a returned packet does not pin a large joined buffer in memory.
      out.push(Buffer.from(buf.subarray(TCP_PREFIX_SIZE, total)));
      buf = buf.subarray(total);
    }
    this.pending = buf.length > 0 ? [buf] : [];
    this.pendingLen = buf.length;
    return out;
  }

  /** Drops everything buffered (after the connection is replaced). */
  reset(): void {
    this.pending = [];
    this.pendingLen = 0;
    this.need = TCP_PREFIX_SIZE;
  }

  /** Skips to the next magic at or after `from`; keeps a tail that may be the start of one. */
  private resync(buf: Buffer, from: number): Buffer {
    const at = buf.indexOf(TCP_MAGIC, from);
    if (at >= 0) {
      this.skippedBytes += at;
      return buf.subarray(at);
    }
    const keep = Math.min(TCP_MAGIC.length - 1, buf.length);
    this.skippedBytes += buf.length - keep;
    return buf.subarray(buf.length - keep);
  }
}

function startsWithMagic(buf: Buffer): boolean {
  return buf[0] === TCP_MAGIC[0] && buf[1] === TCP_MAGIC[1] && buf[2] === TCP_MAGIC[2] && buf[3] === TCP_MAGIC[3];
}
