import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { isBusyJournalError, isFatalJournalError } from './errors.js';

/** Kept writes are tried again after 100 ms, doubling to 2 s, for as long as the journal is busy. */
const RETRY = { baseMs: 100, maxMs: 2000 };

export interface WriteGateOptions {
  clock: Clock;
  logger?: Logger;
  /** A kept write met a journal that cannot be written (disk full, read-only, damaged). */
  onFatal?: (e: unknown) => void;
  /** The journal became busy (since when) or free again (null). */
  onBusyChange?: (since: number | null) => void;
  /**
   * Asked after each write: an error when what was just written cannot be kept (the journal's
   * file was deleted under it). That write is then refused as failed, as is every later one.
   */
  check?: () => unknown;
}

/**
 * Every write of a journal passes here. It knows since when another process has held the
 * journal's write lock (for the status), and keeps the writes that must happen but need not
 * happen now (returning a claim, a terminal's or delivery's state) while the journal is busy,
 * trying them again until they are done. Punches are not kept here: a source must know whether
 * its punches are durable, so it keeps them itself (src/sources/punch-buffer.ts).
 */
export class WriteGate {
  private since: number | null = null;
  /** In order of arrival; a later write under the same key replaces the earlier one. */
  private readonly kept = new Map<string, () => void>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private fatal: unknown;

  constructor(private readonly o: WriteGateOptions) {}

  /** Epoch ms since which writes have been refused as busy; null when the last write went through. */
  get busySince(): number | null {
    return this.since;
  }

  /** Writes kept for later. */
  get keptWrites(): number {
    return this.kept.size;
  }

  /** Runs one write now. A busy journal is noted and the error thrown on; a success clears it. */
  attempt<T>(fn: () => T): T {
    if (this.fatal !== undefined) throw this.fatal;
    let result: T;
    try {
      result = fn();
      this.free();
    } catch (e) {
      if (isBusyJournalError(e)) this.busy();
      throw e;
    }
    const lost = this.o.check?.();
    if (lost !== undefined) {
      this.fatal = lost;
      throw lost;
    }
    return result;
  }

  /**
   * A write that must happen but may happen later: done now when the journal is free (and no
   * earlier kept write waits), otherwise kept and retried until done. Errors other than busy
   * are thrown as usual.
   */
  defer(key: string | undefined, fn: () => void): void {
    const k = key ?? `#${this.seq++}`;
    if (this.kept.size > 0) {
      this.kept.delete(k);
      this.kept.set(k, fn);
      this.retry();
      return;
    }
    try {
      this.attempt(fn);
    } catch (e) {
      if (!isBusyJournalError(e)) throw e;
      this.kept.set(k, fn);
      this.schedule();
    }
  }

  /** Applies the kept writes in order; throws while the journal is still busy. */
  flush(): void {
    for (const [k, fn] of this.kept) {
      try {
        this.attempt(fn);
      } catch (e) {
        if (isBusyJournalError(e) || isFatalJournalError(e)) throw e;
        // A write that can never succeed (a bug, a constraint): said, and not tried forever.
        this.o.logger?.error({ err: e instanceof Error ? e.message : String(e) }, 'a kept journal write failed');
      }
      this.kept.delete(k);
    }
    this.failures = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Tries the kept writes now; returns how many still wait. */
  retry(): number {
    try {
      this.flush();
    } catch (e) {
      if (isBusyJournalError(e)) this.schedule();
      else this.failFatally(e);
    }
    return this.kept.size;
  }

  /** Stops retrying (the journal is closing); returns how many writes were never done. */
  stop(): number {
    clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.kept.size;
    this.kept.clear();
    return left;
  }

  private schedule(): void {
    if (this.timer || this.kept.size === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.failures++;
        this.retry();
      },
      backoffDelay(this.failures, RETRY),
    );
    this.timer.unref();
  }

  private failFatally(e: unknown): void {
    if (this.o.onFatal) this.o.onFatal(e);
    else this.fatal = e;
  }

  private busy(): void {
    if (this.since !== null) return;
    this.since = this.o.clock.now();
    this.o.logger?.warn(
      'journal busy: another process holds its write lock; punches are kept in memory and written as soon as it is free',
    );
    this.o.onBusyChange?.(this.since);
  }

  private free(): void {
    if (this.since === null) return;
    const ms = this.o.clock.now() - this.since;
    this.since = null;
    this.o.logger?.info({ busyForMs: ms }, `journal free again after ${Math.round(ms / 1000)} s`);
    this.o.onBusyChange?.(null);
  }
}
