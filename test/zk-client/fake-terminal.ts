/**
 * A scripted fake ZK terminal for the client tests (test double at the network edge): a TCP or UDP
 * server on 127.0.0.1:0 answering from the codec. TCP output goes through a pump that cuts the byte
 * stream at random boundaries and glues packets together, so the client's framing is exercised.
 * `hook` lets a test drop, delay, duplicate or replace replies, or close the connection.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import {
  CMD,
  decodePacket,
  encodeFreeSizes,
  encodePacket,
  makeCommKey,
  wrapTcp,
  TcpFramer,
  type ZkPacket,
} from '../../src/sources/zk/protocol/index.js';
import { seededRandom as prng } from '../../src/util/seeded-random.js';

export interface Conn {
  readonly sessionId: number;
  /** Sends packets (ZK header + data) after the current replies. */
  send(packets: Buffer[]): void;
  sendLater(ms: number, packets: Buffer[]): void;
  /** Flushes what is queued, then closes (TCP). */
  close(): void;
  /** UDP: the client's address and port (a stranger on the LAN sends there). */
  readonly peer?: { address: string; port: number };
}

export type Hook = (req: ZkPacket, replies: Buffer[], conn: Conn) => Buffer[] | void;

export interface FakeTerminalOptions {
  transport: 'tcp' | 'udp';
  commKey?: number;
  users?: Buffer;
  attendance?: Buffer;
  /** Datasets up to this size are answered directly with CMD_DATA (default 1024). */
  directLimit?: number;
  /** CMD_DATA payload per packet (default: whole chunk over TCP, 1024 over UDP). */
  dataPacketSize?: number;
  /** Random seed for the TCP byte pump. */
  seed?: number;
  hook?: Hook;
}

export function reply(req: ZkPacket, command: number, sessionId: number, data?: Buffer): Buffer {
  return encodePacket({ command, sessionId, replyId: req.replyId, data });
}

interface Session {
  id: number;
  authed: boolean;
  prepared: Buffer | null;
  events: number;
}

export class FakeTerminal {
  port = 0;
  time = 0x2368b131;
  readonly requests: ZkPacket[] = [];
  private nextSession = 0x45cf;
  private readonly tcp = net.createServer();
  private readonly udp = dgram.createSocket('udp4');
  private readonly sockets = new Set<net.Socket>();
  private readonly rand: () => number;
  private readonly emitters: ((packet: Buffer) => void)[] = [];
  private stopped = false;

  constructor(readonly opts: FakeTerminalOptions) {
    this.rand = prng(opts.seed ?? 1);
  }

  async start(): Promise<number> {
    if (this.opts.transport === 'tcp') {
      this.tcp.on('connection', (s) => this.serveTcp(s));
      await new Promise<void>((r) => this.tcp.listen(0, '127.0.0.1', r));
      this.port = (this.tcp.address() as net.AddressInfo).port;
    } else {
      this.serveUdp();
      await new Promise<void>((r) => this.udp.bind(0, '127.0.0.1', r));
      this.port = this.udp.address().port;
    }
    return this.port;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sockets) s.destroy();
    if (this.opts.transport === 'tcp') await new Promise((r) => this.tcp.close(r));
    else await new Promise<void>((r) => this.udp.close(() => r()));
  }

  /** Pushes a real-time event to every session registered for it. */
  pushEvent(eventCode: number, data: Buffer): void {
    for (const emit of this.emitters)
      emit(encodePacket({ command: CMD.REG_EVENT, sessionId: eventCode, replyId: 0, data }));
  }

  private serveTcp(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
    const framer = new TcpFramer();
    const outbox: (Buffer | 'close')[] = [];
    let pumping = false;
    const pump = async () => {
      if (pumping) return;
      pumping = true;
      while (outbox.length > 0 && !socket.destroyed) {
        const head = outbox[0]!;
        if (head === 'close') {
          socket.destroy();
          break;
        }
        const n = this.pieceSize();
        if (n >= head.length) {
          outbox.shift();
          const next = outbox[0];
          // Glue the start of the next packet on: coalesced packets in one write.
          if (next && next !== 'close' && this.rand() < 0.5) {
            const take = Math.min(next.length, 1 + Math.floor(this.rand() * next.length));
            outbox[0] = next.subarray(take);
            socket.write(Buffer.concat([head, next.subarray(0, take)]));
            if (outbox[0].length === 0) outbox.shift();
          } else socket.write(head);
        } else {
          socket.write(head.subarray(0, n));
          outbox[0] = head.subarray(n);
        }
        await new Promise((r) => setImmediate(r));
      }
      pumping = false;
    };
    const conn = this.makeConn(
      (packets) => {
        outbox.push(...packets.map(wrapTcp));
        void pump();
      },
      () => {
        outbox.push('close');
        void pump();
      },
    );
    socket.on('data', (chunk) => {
      for (const raw of framer.push(chunk)) this.handle(decodePacket(raw), conn);
    });
  }

  private serveUdp(): void {
    const conns = new Map<string, Conn & { session: Session }>();
    this.udp.on('message', (msg, rinfo) => {
      const key = `${rinfo.address}:${rinfo.port}`;
      let conn = conns.get(key);
      if (!conn) {
        const sendOne = (p: Buffer) => {
          // A reply sent late (sendLater) may come after the terminal stopped: dropped, as on the wire.
          if (this.stopped) return;
          this.udp.send(p, rinfo.port, rinfo.address);
        };
        // Pace datagrams a little so loopback receive buffers never overflow.
        conn = this.makeConn(
          (packets) => packets.forEach((p, i) => setTimeout(() => sendOne(p), i >> 4)),
          () => conns.delete(key),
          { address: rinfo.address, port: rinfo.port },
        );
        conns.set(key, conn);
      }
      this.handle(decodePacket(msg), conn);
    });
  }

  private makeConn(
    out: (packets: Buffer[]) => void,
    close: () => void,
    peer?: { address: string; port: number },
  ): Conn & { session: Session } {
    const session: Session = { id: 0, authed: false, prepared: null, events: 0 };
    const conn = {
      session,
      peer,
      get sessionId() {
        return session.id;
      },
      send: out,
      sendLater: (ms: number, packets: Buffer[]) => void setTimeout(() => out(packets), ms),
      close,
    };
    this.emitters.push((p) => {
      if (session.events) out([p]);
    });
    return conn;
  }

  private pieceSize(): number {
    const r = this.rand();
    if (r < 0.5) return 1 + Math.floor(this.rand() * 64);
    if (r < 0.8) return 1 + Math.floor(this.rand() * 2000);
    return 1 + Math.floor(this.rand() * 150_000);
  }

  private handle(req: ZkPacket, conn: Conn & { session: Session }): void {
    this.requests.push(req);
    if (req.command === CMD.ACK_OK) return; // event acknowledgements
    let replies = this.answer(req, conn.session);
    const hooked = this.opts.hook?.(req, replies, conn);
    if (hooked) replies = hooked;
    if (replies.length > 0) conn.send(replies);
  }

  private answer(req: ZkPacket, s: Session): Buffer[] {
    const ok = (data?: Buffer) => [reply(req, CMD.ACK_OK, s.id, data)];
    if (req.command === CMD.CONNECT) {
      s.id = this.nextSession++;
      s.authed = !this.opts.commKey;
      return [reply(req, s.authed ? CMD.ACK_OK : CMD.ACK_UNAUTH, s.id)];
    }
    if (req.command === CMD.AUTH) {
      const expected = makeCommKey(this.opts.commKey ?? 0, s.id, req.data[2] ?? 0);
      s.authed = expected.equals(req.data);
      return [reply(req, s.authed ? CMD.ACK_OK : CMD.ACK_UNAUTH, s.id)];
    }
    if (!s.authed) return [reply(req, CMD.ACK_UNAUTH, s.id)];
    switch (req.command) {
      case CMD.EXIT:
      case CMD.FREE_DATA:
        return ok();
      case CMD.GET_FREE_SIZES:
        return ok(encodeFreeSizes({ users: 2, records: 5, userCapacity: 3000, recordCapacity: 100_000 }));
      case CMD.GET_TIME:
        return ok(Buffer.from(new Uint32Array([this.time]).buffer));
      case CMD.SET_TIME:
        this.time = req.data.readUInt32LE(0);
        return ok();
      case CMD.OPTIONS_RRQ:
        return ok(Buffer.from('~SerialNumber=FAKE0001\0'));
      case CMD.GET_VERSION:
        return ok(Buffer.from('Ver 6.60 Apr 28 2015\0'));
      case CMD.CLEAR_ATTLOG:
        this.opts.attendance = Buffer.alloc(4);
        return ok();
      case CMD.REG_EVENT:
        s.events = req.data.readUInt32LE(0);
        return ok();
      case CMD.DATA_WRRQ:
        return this.prepare(req, s);
      case CMD.DATA_RDY:
        return this.chunk(req, s);
      default:
        return [reply(req, CMD.ACK_UNKNOWN, s.id)];
    }
  }

  private prepare(req: ZkPacket, s: Session): Buffer[] {
    const cmd = req.data.readUInt16LE(1);
    const data = cmd === CMD.ATTLOG_RRQ ? this.opts.attendance : cmd === CMD.USERTEMP_RRQ ? this.opts.users : undefined;
    if (!data) return [reply(req, CMD.ACK_ERROR, s.id)];
    if (this.opts.transport === 'tcp' && data.length <= (this.opts.directLimit ?? 1024))
      return [reply(req, CMD.DATA, s.id, data)];
    s.prepared = data;
    const stat = Buffer.alloc(13);
    stat.writeUInt32LE(data.length, 1);
    stat.writeUInt32LE(data.length, 5);
    return [reply(req, CMD.ACK_OK, s.id, stat)];
  }

  private chunk(req: ZkPacket, s: Session): Buffer[] {
    const start = req.data.readUInt32LE(0);
    const len = req.data.readUInt32LE(4);
    const body = (s.prepared ?? Buffer.alloc(0)).subarray(start, start + len);
    const per = this.opts.dataPacketSize ?? (this.opts.transport === 'udp' ? 1024 : 65472);
    const prep = Buffer.alloc(8);
    prep.writeUInt32LE(body.length, 0);
    prep.writeUInt32LE(per, 4);
    const out = [reply(req, CMD.PREPARE_DATA, s.id, prep)];
    for (let off = 0, i = 0; off < body.length; off += per, i++) {
      out.push(reply(req, CMD.DATA, i, body.subarray(off, off + per)));
    }
    out.push(reply(req, CMD.ACK_OK, s.id));
    return out;
  }
}
