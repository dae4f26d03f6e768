/**
 * Request/reply over one ZK connection: reply-id matching (u16, wrapping 65535 -> 0),
 * a timeout on every exchange that tears the connection down, and one operation at a time.
 *
 * A packet is taken as a reply only if a request is waiting and the packet carries that
 * request's reply id. Everything else (a late reply after a timeout, a separate trailing ACK,
 * an unsolicited packet) is logged and dropped. Real-time events (cmd REG_EVENT) go to `onEvent`.
 * A reply must also carry the session id where terminals put it (see fromSession): one that does
 * not is another device answering in the terminal's name, counted and dropped.
 */
import {
  CMD,
  commandName,
  encodePacket,
  ZkConnectionError,
  ZkProtocolError,
  ZkTimeoutError,
  type ZkPacket,
} from '../protocol/index.js';
import type { ZkLogger, ZkTransport } from './transport.js';

/**
 * Looks at each reply packet of one request; returns `{ done: true, value }` when it has all it
 * needs. Throw to fail. `{ done: false, orElse }` waits only `orElse.ms` for the next packet, then
 * fails the request with `orElse.error()` and leaves the connection open: the terminal did answer,
 * a datagram of the answer may still be on its way (UDP delivers out of order).
 */
export type Collector<T> = (
  packet: ZkPacket,
) => { done: true; value: T } | { done: false; orElse?: { ms: number; error: () => Error } };

/** The default collector: the first reply packet is the whole reply. */
export const firstPacket: Collector<ZkPacket> = (p) => ({ done: true, value: p });

interface Waiter {
  replyId: number;
  command: number;
  timeoutMs: number;
  collector: Collector<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  /** Packets received while waiting that carried another reply id (dropped). */
  strays: number;
  /** Packets with this request's reply id but another session's id (dropped: see fromSession). */
  foreign: number;
  /** performance.now() when bytes of a packet not yet whole last arrived (see onPartial). */
  partialAt: number;
  /** Packets of the reply received so far. */
  packets: number;
  /** UDP: sends the request again while nothing of its reply came (see REPEATABLE_OVER_UDP). */
  resend: NodeJS.Timeout | undefined;
}

/**
 * Requests sent again over UDP while nothing of their reply came: a datagram lost on the way
 * (either way) failed the whole poll as "no answer, check the cable". Only requests that change
 * nothing when the terminal gets them twice, and whose reply is one packet (a second reply has the
 * same reply id and is dropped as answering no pending request): not CONNECT (a second session),
 * AUTH, SET_TIME, CLEAR_ATTLOG, EXIT, user writes, nor DATA_RDY (its reply is several packets).
 */
const REPEATABLE_OVER_UDP: ReadonlySet<number> = new Set([
  CMD.GET_FREE_SIZES,
  CMD.GET_TIME,
  CMD.GET_VERSION,
  CMD.OPTIONS_RRQ,
  CMD.FREE_DATA,
  CMD.DATA_WRRQ,
  CMD.DISABLEDEVICE,
  CMD.ENABLEDEVICE,
  CMD.REG_EVENT,
]);

/** Times such a request is sent again within its timeoutMs (a third of it apart). */
const UDP_RESENDS = 2;

export interface ExchangeOptions {
  timeoutMs: number;
  logger: ZkLogger;
  /** Reply id of the first request (tests use values near 65535 to exercise wrap-around). */
  initialReplyId?: number;
  /** Called for each packet dropped as another session's (see fromSession). */
  onForeign?: () => void;
}

export class ZkExchange {
  /** Session id from the CONNECT reply; sent back in every later request. */
  sessionId = 0;
  /** Receives real-time event packets (cmd REG_EVENT, session field = event code). */
  onEvent: ((packet: ZkPacket) => void) | null = null;
  /** Called once when the connection is gone, with the reason. */
  onClosed: ((err: Error) => void) | null = null;
  private nextReplyId: number;
  private waiter: Waiter | null = null;
  private closedWith: Error | null = null;
  private readonly logger: ZkLogger;

  constructor(
    private readonly transport: ZkTransport,
    private readonly opts: ExchangeOptions,
  ) {
    this.logger = opts.logger;
    this.nextReplyId = (opts.initialReplyId ?? 0) & 0xffff;
    transport.onPacket = (p) => this.receive(p);
    // A packet arriving in pieces (a slow link, a byte at a time) is the terminal answering: the
    // inactivity limit counts from its last byte, not from the last whole packet. A 64 kB piece
    // of a log on a link slower than 64 kB per timeoutMs (a VPN, a radio link) failed every poll
    // with "no answer, check the cable" while its bytes were still coming.
    transport.onPartial = () => {
      if (this.waiter) this.waiter.partialAt = performance.now();
    };
    transport.onClose = (err) => {
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      const during = this.waiter ? ` during ${commandName(this.waiter.command)}` : '';
      const reason =
        this.closedWith ??
        (err instanceof ZkProtocolError ? err : undefined) ??
        new ZkConnectionError(
          `connection to ${transport.peer} closed${during}${err ? `: ${code ?? err.message}` : ''}`,
          { cause: err, code },
        );
      this.finish(reason);
    };
  }

  get peer(): string {
    return this.transport.peer;
  }

  get isOpen(): boolean {
    return this.closedWith === null;
  }

  /**
   * Why a request (`what`) cannot be sent, or null while the connection is open. A timeout that
   * closed the connection is the fault to say: swallowed by a caller that could do without that
   * answer (serial, firmware), it made the next question's "not connected" read as "the terminal
   * closed the connection" (check the cable) in the status, for a terminal that had said nothing.
   */
  notOpen(what: string): Error | null {
    const was = this.closedWith;
    if (!was) return null;
    if (was instanceof ZkTimeoutError) return was;
    return new ZkConnectionError(`not connected to ${this.peer} (${what}): ${was.message}`, {
      cause: was,
      code: was instanceof ZkConnectionError ? was.code : undefined,
    });
  }

  /** Reply id the next request will carry. */
  get replyId(): number {
    return this.nextReplyId;
  }

  /**
   * Sends one request and resolves with what `collector` makes of the packets carrying its
   * reply id. `timeoutMs` is an inactivity limit: it restarts with every packet of the reply.
   */
  request<T>(
    command: number,
    data: Buffer = Buffer.alloc(0),
    collector?: Collector<T>,
    timeoutMs?: number,
  ): Promise<T> {
    const closed = this.notOpen(commandName(command));
    if (closed) return Promise.reject(closed);
    if (this.waiter) {
      return Promise.reject(
        new Error(`ZK exchange busy with ${commandName(this.waiter.command)}; operations must be queued`),
      );
    }
    const replyId = this.nextReplyId;
    this.nextReplyId = (replyId + 1) & 0xffff;
    const limit = timeoutMs ?? this.opts.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        replyId,
        command,
        timeoutMs: limit,
        collector: (collector ?? firstPacket) as Collector<unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
        timer: this.startTimer(limit),
        strays: 0,
        foreign: 0,
        partialAt: 0,
        packets: 0,
        resend: undefined,
      };
      this.waiter = waiter;
      try {
        const packet = encodePacket({ command, sessionId: this.sessionId, replyId, data });
        this.transport.send(packet);
        if (this.transport.kind === 'udp' && REPEATABLE_OVER_UDP.has(command)) this.resendLater(waiter, packet, 1);
      } catch (err) {
        this.settle(waiter);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Sends `packet` again a third of the timeout on, unless a reply came (or the request ended). */
  private resendLater(w: Waiter, packet: Buffer, n: number): void {
    if (n > UDP_RESENDS) return;
    w.resend = setTimeout(
      () => {
        if (this.waiter !== w || this.closedWith) return;
        this.logger.debug({ peer: this.peer, command: commandName(w.command), time: n }, 'no reply yet: asked again');
        try {
          this.transport.send(packet);
        } catch {
          return; // closed meanwhile: the request ends with the connection
        }
        this.resendLater(w, packet, n + 1);
      },
      Math.max(1, Math.floor(w.timeoutMs / (UDP_RESENDS + 1))),
    );
  }

  /** Sends a packet that expects no reply (ACK of a real-time event). */
  sendNoReply(command: number, replyId: number, data?: Buffer): void {
    if (this.closedWith) return;
    try {
      this.transport.send(encodePacket({ command, sessionId: this.sessionId, replyId, data }));
    } catch (err) {
      this.logger.debug({ peer: this.peer, err: String(err) }, 'could not send an acknowledgement');
    }
  }

  /** Tears the connection down: destroys the socket and rejects the waiting request with `err`. */
  fail(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    this.transport.destroy();
    this.finish(err);
  }

  /** Graceful close (after EXIT). */
  close(): void {
    if (this.closedWith) return;
    this.closedWith = new ZkConnectionError(`connection to ${this.peer} was closed by the client`);
    this.transport.close();
    this.finish(this.closedWith);
  }

  /** The inactivity limit `ms` (said in the error), first checked after `delay`. */
  private startTimer(ms: number, delay = ms): NodeJS.Timeout {
    const armedAt = performance.now();
    return setTimeout(() => {
      const w = this.waiter;
      // Bytes of a packet came meanwhile: wait on, `ms` from the last of them.
      if (w && w.partialAt > armedAt) {
        w.timer = this.startTimer(ms, Math.max(1, Math.ceil(w.partialAt + ms - performance.now())));
        return;
      }
      const what = w ? commandName(w.command) : 'a request';
      const strays = w?.strays ?? 0;
      const foreign = w?.foreign ?? 0;
      const noise = this.transport.noise ?? 0;
      // The answer had begun: the terminal was reached, and stopped part-way (a link that drops out).
      const partWay = w !== null && (w.packets > 0 || w.partialAt > 0);
      const others =
        foreign > 0
          ? ` (${foreign} packet${foreign === 1 ? '' : 's'} of another session came in its name, not taken)`
          : strays > 0
            ? ` (it sent ${strays} packet${strays === 1 ? '' : 's'} with another reply id)`
            : noise > 0
              ? ` (it sent ${noise} bytes that are no ZK packet)`
              : '';
      const message = partWay
        ? `the reply from ${this.peer} to ${what} stopped part-way: nothing more within ${ms} ms${others}; connection closed`
        : `no reply from ${this.peer} to ${what} within ${ms} ms${others}; connection closed`;
      this.fail(new ZkTimeoutError(message, { strays, noise, partWay, foreign }));
    }, delay);
  }

  private receive(p: ZkPacket): void {
    try {
      if (p.command === CMD.REG_EVENT) {
        if (this.onEvent) this.onEvent(p);
        else this.logger.debug({ peer: this.peer, event: p.sessionId }, 'ignored a real-time event (not subscribed)');
        return;
      }
      const w = this.waiter;
      if (!w || p.replyId !== w.replyId) {
        if (w) w.strays++;
        this.logger.debug(
          { peer: this.peer, command: commandName(p.command), replyId: p.replyId, expected: w?.replyId ?? null },
          'ignored a packet that answers no pending request',
        );
        return;
      }
      if (!this.fromSession(p, w)) {
        w.foreign++;
        this.opts.onForeign?.();
        this.logger.debug(
          { peer: this.peer, command: commandName(p.command), session: p.sessionId, expected: this.sessionId },
          'ignored a reply of another session (another device answering as the terminal?)',
        );
        return;
      }
      clearTimeout(w.timer);
      clearTimeout(w.resend);
      w.packets++;
      let result: ReturnType<Collector<unknown>>;
      try {
        result = w.collector(p);
      } catch (err) {
        this.settle(w);
        w.reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (result.done) {
        this.settle(w);
        w.resolve(result.value);
      } else if (result.orElse) {
        const { ms, error } = result.orElse;
        w.timer = setTimeout(
          () => {
            this.settle(w);
            w.reject(error());
          },
          Math.min(ms, w.timeoutMs),
        );
      } else {
        w.timer = this.startTimer(w.timeoutMs);
      }
    } catch (err) {
      // A bug in a handler must not become an uncaught exception in a socket callback.
      this.logger.warn({ peer: this.peer, err: String(err) }, 'error while handling a ZK packet');
    }
  }

  /**
   * Whether a reply packet comes from this session. A terminal puts the session id its CONNECT
   * reply gave in the header of every reply (ACK_OK, ACK_ERROR, a dataset sent whole as CMD_DATA)
   * and of a piece's PREPARE_DATA: so in every published capture (pyzk's test.py, the K40 stream
   * of bulentv/js_zklib#53). Not in the packets that follow PREPARE_DATA: a piece's CMD_DATA
   * packets carry their number (0, 1, 2...) and its closing ACK_OK the last number or the piece's
   * length (0x7c after a 124-byte piece in that K40 stream), so those are not checked; bytes
   * forged among them make the piece too long, and it is asked again. Before, a packet with the
   * reply id awaited was taken whatever its session: another device on the LAN answering in the
   * terminal's name (its address forged) had a log it made up journalled as punches.
   */
  private fromSession(p: ZkPacket, w: Waiter): boolean {
    if (w.command === CMD.CONNECT || p.sessionId === this.sessionId) return true;
    if (w.command === CMD.DATA_RDY) return p.command === CMD.DATA || p.command === CMD.ACK_OK;
    return w.packets > 0;
  }

  private settle(w: Waiter): void {
    clearTimeout(w.timer);
    clearTimeout(w.resend);
    if (this.waiter === w) this.waiter = null;
  }

  private finish(err: Error): void {
    if (!this.closedWith) this.closedWith = err;
    const w = this.waiter;
    if (w) {
      this.settle(w);
      w.reject(err);
    }
    const cb = this.onClosed;
    this.onClosed = null;
    if (cb) cb(err);
  }
}

/** Runs async operations one after another (one ZK operation at a time per client). */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(op, op);
    // Keep the chain alive whatever the outcome; the caller gets the real result.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
