import type { AttendanceAnswer } from '../hrms/answer.js';
import type { SinkPunch, SinkSender, SinkSendOptions } from '../sinks/types.js';

/** Told of every request once it ended: its answer (undefined if the sender threw), batch size, seconds. */
export type RequestObserver = (answer: AttendanceAnswer | undefined, sent: number, seconds: number) => void;

/**
 * Wraps a sink's sender to know whether a request is in flight and since when, so the
 * systemd watchdog can tell a delivery loop that makes progress from one that hangs. It sees
 * every request and its answer, so it also tells the metrics (`observe`).
 */
export class TimedSender implements SinkSender {
  inflightSince: number | null = null;

  constructor(
    private readonly inner: SinkSender,
    private readonly now: () => number,
    private readonly observe?: RequestObserver,
  ) {}

  async send(punches: readonly SinkPunch[], opts: SinkSendOptions): Promise<AttendanceAnswer> {
    this.inflightSince = this.now();
    const started = performance.now();
    let answer: AttendanceAnswer | undefined;
    try {
      answer = await this.inner.send(punches, opts);
      return answer;
    } finally {
      this.inflightSince = null;
      this.observe?.(answer, punches.length, (performance.now() - started) / 1000);
    }
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }

  route(): string {
    return this.inner.route?.() ?? 'directly';
  }
}
