import { isFatalJournalError } from '../../journal/errors.js';
import type { PunchSink } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import { backoffDelay } from '../../util/backoff.js';
import { printable } from '../../util/terminal-text.js';
import type { SerialStats } from './status.js';

export interface QueuedPunch {
  punch: Punch;
  /** Set when the card was not in the code map. */
  unknownCard?: string;
}

export interface JournalWriterDeps {
  sink: PunchSink;
  timezone: string | undefined;
  log: Logger;
  stats: SerialStats;
  retry: { minMs: number; maxMs: number };
  /** Stop / restart reading the device while the journal cannot take punches. */
  pauseInput(): void;
  resumeInput(): void;
  onFatal?: (err: unknown) => void;
}

/**
 * Writes a source's punches to the journal: the punches of one read in one transaction
 * (a serial line at 9600 baud delivers a line or two a read, a burst after a reconnect a
 * few hundred). When the journal fails it keeps them in order, pauses the input and retries
 * with backoff; nothing read is dropped while the process lives.
 */
export class JournalWriter {
  private queue: QueuedPunch[] = [];
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly d: JournalWriterDeps) {}

  get pending(): number {
    return this.queue.length;
  }

  /** True while waiting to retry a failed write: the input should stay paused. */
  get blocked(): boolean {
    return this.timer !== null;
  }

  /** Queues the punches of one read and writes them now unless a retry is pending. */
  add(items: readonly QueuedPunch[]): void {
    this.stopped = false;
    this.queue.push(...items);
    if (!this.blocked) this.drain();
  }

  /** One last attempt; what the journal still refuses is reported, not silently dropped. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.drain();
    if (this.queue.length > 0)
      this.d.log.error({ punches: this.queue.length }, 'stopping with punches the journal did not take');
  }

  private drain(): void {
    this.timer = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    let result;
    try {
      result = this.d.sink.ingest(
        batch.map((q) => q.punch),
        { timezone: this.d.timezone },
      );
    } catch (e) {
      this.failed(e);
      return;
    }
    this.queue = [];
    this.d.stats.markJournalled(batch.length, result);
    for (const item of batch) {
      if (item.unknownCard === undefined) continue;
      this.d.stats.markUnknownCard(item.unknownCard);
      this.d.log.warn(
        { card: printable(item.unknownCard), logTime: item.punch.logTime },
        'card not in the code map; journalled as unknown',
      );
    }
    if (this.failures > 0) {
      this.d.log.info({ attempts: this.failures }, 'journal takes punches again; reading resumes');
      this.failures = 0;
      this.d.stats.markError(null);
      this.d.resumeInput();
    }
  }

  private failed(e: unknown): void {
    const message = `journal: ${e instanceof Error ? e.message : String(e)}`;
    if (this.failures === 0) {
      this.d.log.error(
        { error: message, held: this.queue.length },
        'journal refused punches; holding them and pausing the device',
      );
    }
    this.d.stats.markError(message);
    this.d.pauseInput();
    if (isFatalJournalError(e)) this.d.onFatal?.(e);
    const delay = backoffDelay(this.failures++, { baseMs: this.d.retry.minMs, maxMs: this.d.retry.maxMs });
    if (!this.stopped) this.timer = setTimeout(() => this.drain(), delay);
  }
}
