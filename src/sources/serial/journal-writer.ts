import type { IngestResult, PunchSink } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import type { Logger } from '../../util/logger.js';
import { PunchBuffer } from '../punch-buffer.js';
import { logReceived } from '../punch-log.js';
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
  /** The terminal's name, for the log line of each write. */
  terminal: string;
  log: Logger;
  stats: SerialStats;
  /** Stop / restart reading the device: only when the memory buffer is full. */
  pauseInput(): void;
  resumeInput(): void;
  onFatal?: (err: unknown) => void;
  /** Most punches held in memory while the journal cannot take them (default PUNCH_BUFFER_CAPACITY). */
  capacity?: number;
}

/**
 * Writes a serial terminal's punches to the journal: the punches of one read in one transaction
 * (a serial line at 9600 baud delivers a line or two a read, a burst after a reconnect a few
 * hundred). A serial line cannot be read again, so while the journal cannot take punches (busy
 * or failing) they are held in memory and the device is read on (the shared PunchBuffer); only
 * a full buffer pauses the device.
 */
export class JournalWriter {
  private readonly buffer: PunchBuffer<QueuedPunch>;

  constructor(private readonly d: JournalWriterDeps) {
    this.buffer = new PunchBuffer<QueuedPunch>({
      sink: d.sink,
      ingestOptions: () => ({ timezone: d.timezone, live: true }),
      log: d.log,
      capacity: d.capacity,
      onWritten: (items, result) => this.written(items, result),
      onJournalError: (error) => d.stats.markError(error),
      onFatal: d.onFatal,
      onFull: () => d.pauseInput(),
      onRoom: () => d.resumeInput(),
    });
  }

  get pending(): number {
    return this.buffer.size;
  }

  /** True while waiting to retry a failed write. */
  get blocked(): boolean {
    return this.buffer.waiting;
  }

  /** True while the buffer is full: the device stays paused. */
  get full(): boolean {
    return this.buffer.isFull;
  }

  /** Queues the punches of one read and writes them now unless a retry is pending. */
  add(items: readonly QueuedPunch[]): void {
    this.buffer.add(items);
  }

  /** A last attempt (waiting a while for a busy journal); what the journal still refuses is reported. */
  async stop(): Promise<void> {
    await this.buffer.stop();
  }

  private written(batch: readonly QueuedPunch[], result: IngestResult): void {
    this.d.stats.markJournalled(batch.length, result);
    logReceived(this.d.log, this.d.terminal, batch.length, result);
    for (const item of batch) {
      if (item.unknownCard === undefined) continue;
      this.d.stats.markUnknownCard(item.unknownCard);
      this.d.log.warn(
        { card: printable(item.unknownCard), logTime: item.punch.logTime },
        'card not in the code map; journalled as unknown',
      );
    }
  }
}
