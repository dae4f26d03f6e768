/**
 * UDP side of the simulator: bare ZK packets, one per datagram; one session per
 * client address:port, created by CONNECT and dropped by EXIT.
 */
import dgram from 'node:dgram';
import { CMD, HEADER_SIZE } from '../../sources/zk/protocol/constants.js';
import { decodePacket } from '../../sources/zk/protocol/packet.js';
import { SessionPump, sleep } from './pump.js';
import type { SessionIds } from './session-ids.js';
import { ZkSession, type SimContext, type WriteUnit } from './session.js';

/** Peers remembered at most; the longest-idle one is forgotten first. */
const MAX_PEERS = 256;

export class UdpSide {
  private readonly socket: dgram.Socket;
  /** Insertion order = least recently used first. */
  private readonly peers = new Map<string, SessionPump>();

  constructor(
    private readonly ctx: SimContext,
    private readonly ids: SessionIds,
  ) {
    this.socket = dgram.createSocket({ type: 'udp4', reuseAddr: false });
    this.socket.on('message', (msg, rinfo) => this.receive(msg, rinfo));
    this.socket.on('error', (e) => ctx.logger.warn({ err: e.message }, 'udp socket error'));
  }

  bind(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.socket.once('error', onError);
      this.socket.bind({ port, address: host, exclusive: true }, () => {
        this.socket.off('error', onError);
        resolve(this.socket.address().port);
      });
    });
  }

  allPumps(): Iterable<SessionPump> {
    return this.peers.values();
  }

  close(): Promise<void> {
    for (const p of this.peers.values()) p.stop();
    this.peers.clear();
    return new Promise((resolve) => {
      try {
        this.socket.close(() => resolve());
      } catch {
        resolve(); // never bound, or already closed
      }
    });
  }

  private receive(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const { logger } = this.ctx;
    if (msg.length < HEADER_SIZE) {
      logger.warn({ peer: `${rinfo.address}:${rinfo.port}`, bytes: msg.length }, 'runt datagram dropped');
      return;
    }
    const packet = decodePacket(msg);
    const key = `${rinfo.address}:${rinfo.port}`;
    let pump = this.peers.get(key);
    if (packet.command === CMD.CONNECT) {
      pump?.stop();
      pump = this.newPump(rinfo, this.ids.take());
      this.peers.delete(key);
      this.peers.set(key, pump);
      while (this.peers.size > MAX_PEERS) {
        const oldest = this.peers.keys().next().value as string;
        this.peers.get(oldest)?.stop();
        this.peers.delete(oldest);
      }
    } else if (pump) {
      this.peers.delete(key); // refresh its place in the LRU order
      this.peers.set(key, pump);
    } else {
      // Never connected: a throw-away session answers ACK_UNAUTH.
      pump = this.newPump(rinfo, 0);
    }
    pump.request(packet);
    if (packet.command === CMD.EXIT && this.peers.get(key) === pump) this.peers.delete(key);
  }

  private newPump(rinfo: dgram.RemoteInfo, id: number): SessionPump {
    const session = new ZkSession(id, 'udp', this.ctx);
    return new SessionPump(session, { send: (unit) => this.send(unit, rinfo) }, this.ctx.logger);
  }

  /** Each packet is its own datagram; pacing and throttling apply after every one. */
  private async send(unit: WriteUnit, to: dgram.RemoteInfo): Promise<boolean> {
    for (const p of unit) {
      const ok = await new Promise<boolean>((resolve) => {
        try {
          this.socket.send(p.packet, to.port, to.address, (err) => {
            if (err) this.ctx.logger.debug({ err: err.message }, 'udp send failed');
            resolve(!err);
          });
        } catch (e) {
          this.ctx.logger.debug({ err: e instanceof Error ? e.message : String(e) }, 'udp send failed');
          resolve(false);
        }
      });
      if (!ok) return false;
      const f = this.ctx.faults.current;
      if (f.slowLinkBytesPerSecond) await sleep((p.packet.length * 1000) / f.slowLinkBytesPerSecond);
      if (f.pacingMs > 0) await sleep(f.pacingMs);
    }
    return true;
  }
}
