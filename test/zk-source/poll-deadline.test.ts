import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PollDeadline } from '../../src/sources/zk/poll-deadline.js';

// A terminal (or a device answering in its place) that announces 2^31-1 records made the deadline
// longer than a Node timer can wait (2^31-1 ms, ~24.8 days): Node fires such a timer after 1 ms,
// so the poll was cut at once and the message blamed a slow terminal (found by an adversarial trial).
describe('PollDeadline with a deadline longer than a timer can wait', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  function deadline(cfg: { pollDeadlineMs: number; pollDeadlinePerRecordMs: number }) {
    const expired = vi.fn();
    const d = new PollDeadline(cfg, Date.now(), () => Date.now(), expired);
    return { d, expired };
  }

  it('does not expire at once when the terminal announces 2^31-1 records', () => {
    const { d, expired } = deadline({ pollDeadlineMs: 60_000, pollDeadlinePerRecordMs: 5 });
    d.recordsAnnounced(2 ** 31 - 1);
    vi.advanceTimersByTime(60_000);
    expect(expired).not.toHaveBeenCalled();
    expect(d.passed).toBe(false);
    d.clear();
  });

  it('still bounds the poll: an announced count is taken at most as what a log can hold', () => {
    const { d, expired } = deadline({ pollDeadlineMs: 60_000, pollDeadlinePerRecordMs: 5 });
    d.recordsAnnounced(2 ** 31 - 1);
    // 64 MiB of 8-byte records at 5 ms each, plus pollDeadlineMs: under 12 h.
    vi.advanceTimersByTime(12 * 3_600_000);
    expect(expired).toHaveBeenCalledOnce();
    expect(d.message()).toContain('2147483647 records');
  });

  it('a configured deadline beyond a timer (pollDeadlineMs of 30 days) waits that long', () => {
    const { expired } = deadline({ pollDeadlineMs: 30 * 86_400_000, pollDeadlinePerRecordMs: 0 });
    vi.advanceTimersByTime(29 * 86_400_000);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(86_400_000);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('a usual deadline expires on time', () => {
    const { d, expired } = deadline({ pollDeadlineMs: 60_000, pollDeadlinePerRecordMs: 5 });
    d.recordsAnnounced(1000);
    vi.advanceTimersByTime(64_999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
    expect(d.passed).toBe(true);
  });
});
