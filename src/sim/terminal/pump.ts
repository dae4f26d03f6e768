/**
 * Serial processing for one session: requests are answered strictly in order and
 * real-time events are queued between replies, never inside one.
 */
import type { ZkPacket } from '../../sources/zk/protocol/packet.js';
import type { Logger } from '../../util/logger.js';
import type { WriteUnit, ZkSession } from './session.js';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Item = { kind: 'request'; packet: ZkPacket } | { kind: 'event'; unit: WriteUnit };

export interface PumpHooks {
  /** Puts one write unit on the wire (pacing and throttling included). Returns false once the link is gone. */
  send(unit: WriteUnit): Promise<boolean>;
  /** Called after the answer to a request went out (e.g. to close after EXIT). */
  afterRequest?(packet: ZkPacket): void;
}

export class SessionPump {
  private readonly queue: Item[] = [];
  private running = false;
  private stopped = false;

  constructor(
    readonly session: ZkSession,
    private readonly hooks: PumpHooks,
    private readonly logger: Logger,
  ) {}

  request(packet: ZkPacket): void {
    this.push({ kind: 'request', packet });
  }

  event(unit: WriteUnit): void {
    this.push({ kind: 'event', unit });
  }

  /** Nothing more is sent (link closed). */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  private push(item: Item): void {
    if (this.stopped) return;
    // A client flooding requests without reading replies must not grow memory without end.
    if (this.queue.length >= 10_000) {
      this.logger.warn({ session: this.session.id }, 'request queue full; dropping input');
      return;
    }
    this.queue.push(item);
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped) {
        const item = this.queue.shift();
        if (!item) break;
        let units: WriteUnit[];
        try {
          units = item.kind === 'request' ? this.session.handle(item.packet) : [item.unit];
        } catch (e) {
          // Never let one bad request take the terminal down.
          this.logger.warn(
            { session: this.session.id, err: e instanceof Error ? e.message : String(e) },
            'request failed',
          );
          continue;
        }
        for (const unit of units) {
          if (this.stopped || !(await this.hooks.send(unit))) {
            this.stop();
            break;
          }
        }
        if (!this.stopped && item.kind === 'request') this.hooks.afterRequest?.(item.packet);
      }
    } catch (e) {
      this.logger.warn(
        { session: this.session.id, err: e instanceof Error ? e.message : String(e) },
        'session output failed',
      );
      this.stop();
    } finally {
      this.running = false;
    }
  }
}
