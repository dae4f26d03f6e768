/**
 * What the exchange layer needs from a connection: whole ZK packets in, whole packets out.
 * TCP adds the magic/length prefix and stream framing; UDP carries one packet per datagram.
 */
import type { ZkPacket } from '../protocol/index.js';

export type ZkTransportKind = 'tcp' | 'udp';

export interface ZkTransport {
  readonly kind: ZkTransportKind;
  /** `host:port` for messages. */
  readonly peer: string;
  /** Sends one packet (8-byte ZK header + data, without any TCP prefix). */
  send(packet: Buffer): void;
  /** Called with every whole packet received. */
  onPacket: (packet: ZkPacket) => void;
  /**
   * Called when bytes of a packet not yet whole arrive (TCP: a large packet on a slow link, or one
   * written a byte at a time). The terminal is answering: see ZkExchange's inactivity limit.
   */
  onPartial?: () => void;
  /** Called once when the connection is gone (with the socket error, if one caused it). */
  onClose: (err?: Error) => void;
  /** Graceful close (TCP: FIN, then destroy after a grace period). */
  close(): void;
  /** Immediate teardown; pending bytes are dropped. */
  destroy(): void;
  /**
   * Bytes received that were no ZK packet while no packet came at all (TCP), 0 otherwise: a peer
   * that answers, but not as a ZK terminal does, is told apart from one that is silent.
   */
  readonly noise?: number;
}

/** The subset of a pino logger the client uses (a pino Logger fits). */
export interface ZkLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export const nullLogger: ZkLogger = { debug() {}, info() {}, warn() {} };

export function formatPeer(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
