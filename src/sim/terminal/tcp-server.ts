/**
 * TCP side of the simulator: one session per connection, length-framed packets
 * (garbage skipped), replies written one unit per write with the fault switches applied
 * (pacing, slow link, cut mid-transfer, close after EXIT, session limit).
 */
import net from 'node:net';
import { CMD } from '../../sources/zk/protocol/constants.js';
import { decodePacket, TcpFramer, wrapTcp } from '../../sources/zk/protocol/packet.js';
import { SessionPump, sleep } from './pump.js';
import type { SessionIds } from './session-ids.js';
import { ZkSession, type SimContext, type WriteUnit } from './session.js';

/** No client request is anywhere near this; a larger length is garbage. */
const MAX_REQUEST = 0x10000 + 8;
const TCP_HEADER_END = 16;

export class TcpSide {
  private readonly server: net.Server;
  private readonly pumps = new Set<SessionPump>();
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly ctx: SimContext,
    private readonly ids: SessionIds,
  ) {
    this.server = net.createServer({ noDelay: true }, (socket) => this.accept(socket));
    this.server.on('error', (e) => ctx.logger.error({ err: e.message }, 'tcp server error'));
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once('error', onError);
      this.server.listen({ port, host, exclusive: true }, () => {
        this.server.off('error', onError);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  /** Open TCP sessions. */
  count(): number {
    return this.pumps.size;
  }

  /** Sessions that may want a real-time event. */
  allPumps(): Iterable<SessionPump> {
    return this.pumps;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    const { logger, faults } = this.ctx;
    socket.on('error', (e) => logger.debug({ err: e.message }, 'tcp socket error'));
    const max = faults.current.maxSessions;
    if (max !== null && this.pumps.size >= max) {
      logger.info({ open: this.pumps.size, max }, 'fault: connection refused (session limit)');
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    this.sockets.add(socket);
    const session = new ZkSession(this.ids.take(), 'tcp', this.ctx);
    const link = new TcpLink(socket, this.ctx);
    const pump = new SessionPump(
      session,
      {
        send: (unit) => link.send(unit),
        afterRequest: (p) => {
          if (session.cutConnection) {
            logger.info({ session: session.id }, 'fault: connection cut');
            pump.stop();
            socket.destroy();
            return;
          }
          if (p.command === CMD.EXIT && faults.current.closeAfterExit) {
            logger.info({ session: session.id }, 'fault: closing after EXIT');
            pump.stop();
            socket.end();
          }
        },
      },
      logger,
    );
    this.pumps.add(pump);
    logger.debug({ session: session.id, peer: `${socket.remoteAddress}:${socket.remotePort}` }, 'tcp session opened');

    const framer = new TcpFramer({ maxPacket: MAX_REQUEST });
    let skipped = 0;
    socket.on('data', (chunk: Buffer) => {
      for (const raw of framer.push(chunk)) pump.request(decodePacket(raw));
      if (framer.skippedBytes > skipped) {
        logger.warn({ session: session.id, bytes: framer.skippedBytes - skipped }, 'garbage from client skipped');
        skipped = framer.skippedBytes;
      }
    });
    socket.on('close', () => {
      pump.stop();
      link.closed = true;
      this.pumps.delete(pump);
      this.sockets.delete(socket);
      logger.debug({ session: session.id }, 'tcp session closed');
    });
  }
}

/** Writes to one socket: one write per unit, then the pacing pause; throttled and cut by faults. */
class TcpLink {
  closed = false;
  /** Dataset bytes sent on this connection (for disconnectMidTransferAfterBytes). */
  private datasetBytes = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly ctx: SimContext,
  ) {}

  async send(unit: WriteUnit): Promise<boolean> {
    if (this.closed || this.socket.destroyed) return false;
    const f = this.ctx.faults.current;
    const wire = Buffer.concat(unit.map((p) => wrapTcp(p.packet)));
    let cut = wire.length;
    let destroy = false;
    const limit = f.disconnectMidTransferAfterBytes;
    if (limit !== null) {
      let offset = 0;
      for (const p of unit) {
        if (p.datasetBytes > 0 && this.datasetBytes + p.datasetBytes >= limit) {
          cut = offset + TCP_HEADER_END + (limit - this.datasetBytes);
          destroy = true;
          break;
        }
        this.datasetBytes += p.datasetBytes;
        offset += 8 + p.packet.length;
      }
    }
    await this.write(wire.subarray(0, cut), f.slowLinkBytesPerSecond);
    if (destroy) {
      this.ctx.logger.info({ bytes: limit }, 'fault: connection cut mid-transfer');
      this.socket.destroy();
      this.closed = true;
      return false;
    }
    if (f.pacingMs > 0) await sleep(f.pacingMs);
    return !this.closed;
  }

  private async write(buf: Buffer, bytesPerSecond: number | null): Promise<void> {
    if (!bytesPerSecond) return this.writeRaw(buf);
    // A slow link delivers a packet in pieces: ~50 ms worth of bytes at a time.
    const slice = Math.max(1, Math.floor(bytesPerSecond / 20));
    for (let off = 0; off < buf.length && !this.closed; off += slice) {
      const part = buf.subarray(off, off + slice);
      await this.writeRaw(part);
      await sleep((part.length * 1000) / bytesPerSecond);
    }
  }

  private writeRaw(buf: Buffer): Promise<void> {
    if (this.closed || this.socket.destroyed || buf.length === 0) return Promise.resolve();
    if (this.socket.write(buf)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}
