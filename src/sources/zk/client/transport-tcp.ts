/** ZK over TCP: magic + u32 length prefix, length-based framing (TcpFramer). */
import net from 'node:net';
import {
  decodePacket,
  TcpFramer,
  wrapTcp,
  ZkConnectionError,
  ZkProtocolError,
  ZkTimeoutError,
  type ZkPacket,
} from '../protocol/index.js';
import { formatPeer, type ZkLogger, type ZkTransport } from './transport.js';

/** After close(): how long to wait for the peer's FIN before destroying the socket. */
const CLOSE_GRACE_MS = 1000;

export interface TcpTransportOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  logger: ZkLogger;
}

class TcpTransport implements ZkTransport {
  readonly kind = 'tcp' as const;
  onPacket: (packet: ZkPacket) => void = () => {};
  onClose: (err?: Error) => void = () => {};
  onPartial: () => void = () => {};
  private readonly framer = new TcpFramer();
  private lastError: Error | undefined;
  private reportedSkipped = 0;
  /** ZK packets received: none, with bytes skipped, means the peer is no ZK terminal. */
  private packets = 0;

  constructor(
    private readonly socket: net.Socket,
    readonly peer: string,
    private readonly logger: ZkLogger,
  ) {
    socket.setNoDelay(true);
    // A dedicated real-time connection is idle for hours: let the kernel notice a dead peer.
    socket.setKeepAlive(true, 30_000);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err: Error) => {
      this.lastError = err;
    });
    socket.once('close', () => this.onClose(this.notZk() ?? this.lastError));
  }

  /**
   * A peer that sent only bytes that are no ZK packet and closed (a web server's "400 Bad
   * Request", another service on the port): said as such, not as a cable problem (found by an
   * adversarial trial).
   */
  get noise(): number {
    return this.packets > 0 ? 0 : this.framer.skippedBytes;
  }

  private notZk(): ZkProtocolError | undefined {
    if (this.packets > 0 || this.framer.skippedBytes === 0) return undefined;
    return new ZkProtocolError(
      `${this.peer} sent ${this.framer.skippedBytes} bytes that are no ZK packet, then closed the connection`,
    );
  }

  send(packet: Buffer): void {
    if (this.socket.destroyed || !this.socket.writable) {
      throw new ZkConnectionError(`connection to ${this.peer} is closed`);
    }
    this.socket.write(wrapTcp(packet));
  }

  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    for (const raw of this.framer.push(chunk)) {
      this.packets++;
      this.onPacket(decodePacket(raw));
    }
    // Bytes that begin a packet (a valid header) and do not end it yet: only those count, so a
    // peer that floods bytes that are no ZK packet is still timed out as it was.
    if (this.framer.midPacket) this.onPartial();
    if (this.framer.skippedBytes !== this.reportedSkipped) {
      this.logger.warn(
        { peer: this.peer, skippedBytes: this.framer.skippedBytes - this.reportedSkipped },
        'skipped bytes that were not a ZK packet',
      );
      this.reportedSkipped = this.framer.skippedBytes;
    }
  }
}

/** Opens the socket; rejects with ZkConnectionError (refused, unreachable...) or ZkTimeoutError. */
export function openTcpTransport(opts: TcpTransportOptions): Promise<ZkTransport> {
  const peer = formatPeer(opts.host, opts.port);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: opts.host, port: opts.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ZkTimeoutError(`TCP connect to ${peer} timed out after ${opts.connectTimeoutMs} ms`));
    }, opts.connectTimeoutMs);
    const onError = (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        new ZkConnectionError(`TCP connect to ${peer} failed: ${err.code ?? err.message}`, {
          cause: err,
          code: err.code,
        }),
      );
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(new TcpTransport(socket, peer, opts.logger));
    });
  });
}
