/**
 * Bare-socket ZK clients for the simulator tests: they record exactly what arrives and how
 * it was grouped into reads ('data' events / datagrams), so the tests can check framing.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { CMD } from '../../src/sources/zk/protocol/constants.js';
import { decodePacket, encodePacket, TcpFramer, wrapTcp, type ZkPacket } from '../../src/sources/zk/protocol/packet.js';
import { waitFor } from '../helpers/wait.js';

export interface ReadEvent {
  at: number;
  bytes: number;
  /** Packets completed by this read. */
  packets: ZkPacket[];
}

abstract class RawBase {
  readonly packets: ZkPacket[] = [];
  readonly reads: ReadEvent[] = [];
  sessionId = 0;
  replyId = 0;

  protected abstract sendBytes(packet: Buffer): void;

  send(command: number, data: Buffer = Buffer.alloc(0), replyId = ++this.replyId): number {
    this.sendBytes(encodePacket({ command, sessionId: this.sessionId, replyId, data }));
    return replyId;
  }

  /** Waits until at least `n` packets arrived in total; returns them all. */
  async waitPackets(n: number, timeoutMs = 3000): Promise<ZkPacket[]> {
    await waitFor(() => this.packets.length >= n, timeoutMs, `${n} packets (have ${this.packets.length})`);
    return this.packets;
  }

  /** Sends one request and returns the next packet that arrives. */
  async request(command: number, data?: Buffer): Promise<ZkPacket> {
    const before = this.packets.length;
    this.send(command, data);
    await this.waitPackets(before + 1);
    return this.packets[before] as ZkPacket;
  }

  async connect(): Promise<ZkPacket> {
    this.replyId = 0;
    const r = await this.request(CMD.CONNECT);
    this.sessionId = r.sessionId;
    return r;
  }

  /** Packets that arrived after index `from`. */
  since(from: number): ZkPacket[] {
    return this.packets.slice(from);
  }
}

export class RawTcp extends RawBase {
  private readonly framer = new TcpFramer();
  bytesReceived = 0;
  closed = false;
  readonly closedP: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    super();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.bytesReceived += chunk.length;
      const packets = this.framer.push(chunk).map(decodePacket);
      this.packets.push(...packets);
      this.reads.push({ at: performance.now(), bytes: chunk.length, packets });
    });
    socket.on('error', () => {});
    this.closedP = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawTcp> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => {
        s.off('error', reject);
        resolve(new RawTcp(s));
      });
      s.once('error', reject);
    });
  }

  protected sendBytes(packet: Buffer): void {
    this.socket.write(wrapTcp(packet));
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves true if the server closed the connection within `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    return Promise.race([this.closedP.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  }

  close(): void {
    this.socket.destroy();
  }
}

export class RawUdp extends RawBase {
  private constructor(
    readonly socket: dgram.Socket,
    private readonly port: number,
    private readonly host: string,
  ) {
    super();
    socket.on('message', (msg) => {
      const packets = msg.length >= 8 ? [decodePacket(Buffer.from(msg))] : [];
      this.packets.push(...packets);
      this.reads.push({ at: performance.now(), bytes: msg.length, packets });
    });
  }

  static async open(port: number, host = '127.0.0.1'): Promise<RawUdp> {
    const s = dgram.createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
    return new RawUdp(s, port, host);
  }

  protected sendBytes(packet: Buffer): void {
    this.socket.send(packet, this.port, this.host);
  }

  sendRaw(bytes: Buffer): void {
    this.socket.send(bytes, this.port, this.host);
  }

  close(): void {
    this.socket.close();
  }
}

/** DATA_WRRQ payloads as node-zklib and pyzk send them. */
export const WRRQ_USERS = Buffer.from([0x01, 0x09, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0]);
export const WRRQ_ATTLOG = Buffer.from([0x01, 0x0d, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

export function dataRdy(start: number, length: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(start, 0);
  b.writeUInt32LE(length, 4);
  return b;
}

export { waitFor };
