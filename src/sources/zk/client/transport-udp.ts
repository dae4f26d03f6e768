/** ZK over UDP: one packet per datagram, a connected socket so only the terminal's datagrams arrive. */
import dgram from 'node:dgram';
import net from 'node:net';
import { decodePacket, ZkConnectionError, ZkProtocolError, type ZkPacket } from '../protocol/index.js';
import { formatPeer, type ZkLogger, type ZkTransport } from './transport.js';

export interface UdpTransportOptions {
  host: string;
  port: number;
  logger: ZkLogger;
}

class UdpTransport implements ZkTransport {
  readonly kind = 'udp' as const;
  onPacket: (packet: ZkPacket) => void = () => {};
  onClose: (err?: Error) => void = () => {};
  private closed = false;
  private lastError: Error | undefined;

  constructor(
    private readonly socket: dgram.Socket,
    readonly peer: string,
    private readonly logger: ZkLogger,
  ) {
    socket.on('message', (msg: Buffer) => this.receive(msg));
    socket.on('error', (err: Error) => {
      // On a connected UDP socket an ICMP "port unreachable" arrives as ECONNREFUSED.
      this.lastError = err;
      this.destroy();
    });
    socket.once('close', () => this.onClose(this.lastError));
  }

  send(packet: Buffer): void {
    if (this.closed) throw new ZkConnectionError(`connection to ${this.peer} is closed`);
    this.socket.send(packet, (err) => {
      if (err) {
        this.lastError = err;
        this.destroy();
      }
    });
  }

  close(): void {
    this.destroy();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
  }

  private receive(msg: Buffer): void {
    let packet: ZkPacket;
    try {
      packet = decodePacket(msg);
    } catch (err) {
      if (!(err instanceof ZkProtocolError)) throw err;
      this.logger.warn({ peer: this.peer, bytes: msg.length }, 'ignored a datagram too short to be a ZK packet');
      return;
    }
    this.onPacket(packet);
  }
}

/** Binds an ephemeral local port and connects it to the terminal (resolving the host name). */
export function openUdpTransport(opts: UdpTransportOptions): Promise<ZkTransport> {
  const peer = formatPeer(opts.host, opts.port);
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(opts.host) ? 'udp6' : 'udp4');
    const onError = (err: NodeJS.ErrnoException) => {
      socket.close();
      reject(
        new ZkConnectionError(`UDP connect to ${peer} failed: ${err.code ?? err.message}`, {
          cause: err,
          code: err.code,
        }),
      );
    };
    socket.once('error', onError);
    socket.connect(opts.port, opts.host, () => {
      socket.off('error', onError);
      resolve(new UdpTransport(socket, peer, opts.logger));
    });
  });
}
