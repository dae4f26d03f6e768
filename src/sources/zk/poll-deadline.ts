import type { ZkTerminalConfig } from '../../config/terminals.js';

/**
 * The overall deadline of one poll. Each exchange with a terminal has its own inactivity timeout
 * (`timeoutMs`), but a terminal that trickles one small packet at a time never trips it and would
 * hold a poll forever. So a poll also has a deadline: `pollDeadlineMs` from its start, plus
 * `pollDeadlinePerRecordMs` for each record once the terminal has announced how many it holds.
 * When it passes, the connection is torn down and the poll fails with a message that says so.
 */
export class PollDeadline {
  private timer: NodeJS.Timeout | undefined;
  private limitMs: number;
  private records: number | null = null;
  private expired = false;
  private received: { bytes: number; total: number } | null = null;

  constructor(
    private readonly cfg: Pick<ZkTerminalConfig, 'pollDeadlineMs' | 'pollDeadlinePerRecordMs'>,
    private readonly startedAt: number,
    private readonly now: () => number,
    private readonly onExpire: () => void,
  ) {
    this.limitMs = cfg.pollDeadlineMs;
    this.arm();
  }

  /** The terminal announced its record count: the deadline grows with it. */
  recordsAnnounced(records: number): void {
    this.records = records;
    this.limitMs = this.cfg.pollDeadlineMs + Math.ceil(records * this.cfg.pollDeadlinePerRecordMs);
    this.arm();
  }

  /** Bytes of the log received so far (for the message). */
  progress(bytes: number, total: number): void {
    this.received = { bytes, total };
  }

  get passed(): boolean {
    return this.expired;
  }

  /** Why the poll was cut off, in plain words. */
  message(): string {
    const s = (ms: number) => `${Math.round(ms / 100) / 10} s`;
    const limit =
      this.records === null
        ? `pollDeadlineMs ${s(this.cfg.pollDeadlineMs)}`
        : `${s(this.limitMs)} for ${this.records} records: pollDeadlineMs + pollDeadlinePerRecordMs per record`;
    const got = this.received ? `; ${this.received.bytes} of ${this.received.total} bytes of its log had arrived` : '';
    return `poll did not finish within its deadline (${limit})${got}: the terminal answers too slowly`;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    clearTimeout(this.timer);
    const left = Math.max(0, this.startedAt + this.limitMs - this.now());
    this.timer = setTimeout(() => {
      this.expired = true;
      this.onExpire();
    }, left);
    this.timer.unref?.();
  }
}
