import type { AdmsConfig } from '../../config/adms.js';
import type { PushJournal } from '../../journal/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { keptBounds } from './kept.js';

/** Kept uploads dropped per step: one short transaction, never a long one on the event loop (issue 35). */
const STEP = 200;
/** A failed step is said at most this often (a busy journal is tried again at the next tick). */
const ERROR_LOG_MS = 10 * 60_000;

/**
 * Holds the age bound of kept uploads (`adms.keptUploads.maxAgeDays`) when no new upload comes
 * to prune them (a terminal taken out of the config, its firmware fixed): each tick of the
 * receiver drops those too old in bounded steps, the next step after the event loop has turned.
 */
export class KeptAger {
  private running = false;
  private stopped = false;
  private lastError = -Infinity;

  constructor(
    private readonly journal: PushJournal,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: () => AdmsConfig,
  ) {}

  /** One tick: drops what is too old, step by step; a tick while steps are under way adds none. */
  tick(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.step(0);
  }

  stop(): void {
    this.stopped = true;
  }

  private step(droppedSoFar: number): void {
    // Stopped between two steps: the journal may be closed by now.
    if (this.stopped) return;
    const { maxAgeMs } = keptBounds(this.settings());
    const now = this.clock.now();
    let r: { dropped: number; more: boolean };
    try {
      r = this.journal.pruneKeptByAge(maxAgeMs, now, STEP);
    } catch (e) {
      this.running = false;
      if (now - this.lastError >= ERROR_LOG_MS) {
        this.lastError = now;
        this.logger.warn(
          { err: e instanceof Error ? e.message : String(e) },
          'could not drop the kept push uploads older than adms.keptUploads.maxAgeDays (journal busy?): tried again shortly',
        );
      }
      return;
    }
    const dropped = droppedSoFar + r.dropped;
    if (r.more && !this.stopped) {
      setImmediate(() => this.step(dropped));
      return;
    }
    this.running = false;
    if (dropped > 0) {
      const days = this.settings().keptUploads.maxAgeDays;
      this.logger.info(
        { dropped, maxAgeDays: days },
        `${dropped} kept push upload(s) older than adms.keptUploads.maxAgeDays (${days} ${days === 1 ? 'day' : 'days'}) dropped, counted as dropped in the status`,
      );
    }
  }
}
