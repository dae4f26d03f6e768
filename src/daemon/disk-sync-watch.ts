import type { DiskSyncFigures } from '../status/types.js';

/** How far back the figures look: long enough that one slow sync is not the disk, short enough to show a disk going bad today. */
export const DISK_SYNC_WINDOW_MS = 10 * 60_000;
/** The syncs remembered at most (the newest); a busy box makes a few per second. */
const KEPT = 2048;

/**
 * The pace of the disk under the journal, as the daemon lives it: how long each disk sync of the
 * write-ahead log took (Journal.onDiskSync: the syncs made beside the event loop, after push
 * uploads and delivery's writes; a push terminal's OK waits for one). A worn SD card or a failing
 * disk takes half a second or more; the status says so (alerts.ts) before terminals time out.
 */
export class DiskSyncWatch {
  /** When each remembered sync ended (monotonic ms) and how long it took (ms), oldest first, in a ring. */
  private readonly at = new Float64Array(KEPT);
  private readonly took = new Float64Array(KEPT);
  private next = 0;
  private count = 0;

  constructor(
    /** Monotonic milliseconds (the box's clock may step; the window must not). */
    private readonly monoNow: () => number = () => performance.now(),
    private readonly windowMs = DISK_SYNC_WINDOW_MS,
  ) {}

  /** A sync that took `seconds` (Journal.onDiskSync's listener). */
  readonly record = (seconds: number): void => {
    this.at[this.next] = this.monoNow();
    this.took[this.next] = seconds * 1000;
    this.next = (this.next + 1) % KEPT;
    this.count = Math.min(this.count + 1, KEPT);
  };

  /** The syncs of the last window: how many, the 90th percentile and the slowest (ms); none when there were none. */
  figures(): DiskSyncFigures | undefined {
    const since = this.monoNow() - this.windowMs;
    const recent: number[] = [];
    for (let i = 0; i < this.count; i++) {
      const k = (this.next - 1 - i + KEPT) % KEPT;
      if (this.at[k]! < since) break; // older ones follow
      recent.push(this.took[k]!);
    }
    if (recent.length === 0) return undefined;
    recent.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      syncs: recent.length,
      p90Ms: round(recent[Math.min(recent.length - 1, Math.ceil(recent.length * 0.9) - 1)]!),
      maxMs: round(recent[recent.length - 1]!),
      windowMinutes: Math.round(this.windowMs / 60_000),
    };
  }
}
