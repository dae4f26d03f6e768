import { describe, expect, it } from 'vitest';
import { DISK_SYNC_WINDOW_MS, DiskSyncWatch } from '../../src/daemon/disk-sync-watch.js';

describe('disk sync watch: how long the journal disk took to sync lately', () => {
  function watchOnFakeMono() {
    let mono = 1000;
    const w = new DiskSyncWatch(() => mono);
    return { w, advance: (ms: number) => void (mono += ms) };
  }

  it('none made: no figures (not zeros, which would read as a fast disk)', () => {
    expect(watchOnFakeMono().w.figures()).toBeUndefined();
  });

  it('gives the count, the 90th percentile and the slowest of the window', () => {
    const { w, advance } = watchOnFakeMono();
    for (let i = 0; i < 18; i++) {
      w.record(0.004);
      advance(100);
    }
    w.record(0.8);
    w.record(1.25);
    // 20 syncs: the 18th is the 90th percentile, still a fast one; the slowest 1.25 s.
    expect(w.figures()).toEqual({ syncs: 20, p90Ms: 4, maxMs: 1250, windowMinutes: 10 });
    w.record(0.9);
    w.record(0.9);
    // 22: the 20th is one of the slow ones.
    expect(w.figures()).toMatchObject({ syncs: 22, p90Ms: 900, maxMs: 1250 });
  });

  it('forgets what is older than the window, by the monotonic clock', () => {
    const { w, advance } = watchOnFakeMono();
    for (let i = 0; i < 30; i++) w.record(2);
    advance(DISK_SYNC_WINDOW_MS - 1);
    w.record(0.001);
    expect(w.figures()).toMatchObject({ syncs: 31, maxMs: 2000 });
    advance(2);
    // The slow ones fell out of the window: the disk is fast again.
    expect(w.figures()).toEqual({ syncs: 1, p90Ms: 1, maxMs: 1, windowMinutes: 10 });
    advance(DISK_SYNC_WINDOW_MS);
    expect(w.figures()).toBeUndefined();
  });

  it('keeps the newest syncs when more come than it remembers (a busy box)', () => {
    const { w } = watchOnFakeMono();
    for (let i = 0; i < 5000; i++) w.record(i < 4000 ? 3 : 0.002);
    // The last 2048 remembered: 1000 fast ones and 1048 slow ones, in the window.
    const f = w.figures()!;
    expect(f.syncs).toBe(2048);
    expect(f.maxMs).toBe(3000);
    expect(f.p90Ms).toBe(3000);
  });
});
