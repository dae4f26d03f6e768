import type { ZkTerminalConfig } from '../../config/terminals.js';
import { MAX_DATASET } from './client/bulk-read.js';

/**
 * The longest a Node timer waits (2^31-1 ms, ~24.8 days). A longer delay fires after 1 ms: a
 * terminal announcing 2^31-1 records (a corrupt count, or a device answering in its place) made the
 * deadline that long, and the poll was cut at once with a message blaming a slow terminal. Longer
 * deadlines are waited out in steps of this.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The most records a log can hold that punchgate downloads at all (its dataset bound, in the
 * smallest, 8-byte records): a count announced above it adds no time, so a lying count cannot hold
 * a trickling poll for months.
 */
const MAX_COUNTED_RECORDS = Math.floor(MAX_DATASET / 8);

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
    const counted = Math.min(Math.max(0, records), MAX_COUNTED_RECORDS);
    this.limitMs = this.cfg.pollDeadlineMs + Math.ceil(counted * this.cfg.pollDeadlinePerRecordMs);
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
        : this.records > MAX_COUNTED_RECORDS
          ? `${s(this.limitMs)}: the terminal announced ${this.records} records, more than a log punchgate reads can hold, so only ${MAX_COUNTED_RECORDS} were counted: pollDeadlineMs + pollDeadlinePerRecordMs per record`
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
    this.timer = setTimeout(
      () => {
        if (left > MAX_TIMER_MS) return this.arm(); // a step of a longer wait: wait the rest
        this.expired = true;
        this.onExpire();
      },
      Math.min(left, MAX_TIMER_MS),
    );
    this.timer.unref?.();
  }
}
