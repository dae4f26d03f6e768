/**
 * The parts the `punchgate sim <device>` commands share (src/cli/sim-options.ts): a simulator
 * that cannot listen exits 75 naming the address, and new data comes every few seconds until
 * the stop signal, after which the simulator is stopped.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listenOrTempfail, tickUntilStopped, timedLog } from '../../src/cli/sim-options.js';
import { ExitError } from '../../src/util/exit-codes.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('sim options', () => {
  it('a simulator that cannot listen exits 75 with the address and the cause', async () => {
    const refused = listenOrTempfail('127.0.0.1', 8080, Promise.reject(new Error('listen EADDRINUSE')));
    await expect(refused).rejects.toBeInstanceOf(ExitError);
    await expect(refused).rejects.toMatchObject({
      exitCode: 75,
      message: 'cannot listen on 127.0.0.1:8080: listen EADDRINUSE',
    });
    await expect(listenOrTempfail('127.0.0.1', 0, Promise.resolve('sim'))).resolves.toBe('sim');
  });

  it('ticks every N seconds until stopped, then stops the simulator; none without N', async () => {
    vi.useFakeTimers();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    const sim = { stop: vi.fn(() => Promise.resolve()) };
    let ticks = 0;
    const done = tickUntilStopped({ until }, sim, 2, () => void ticks++);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(ticks).toBe(2);
    expect(sim.stop).not.toHaveBeenCalled();
    stop();
    await expect(done).resolves.toBe(0);
    expect(sim.stop).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ticks).toBe(2);

    const quiet = tickUntilStopped({ until: Promise.resolve() }, sim, undefined, () => void ticks++);
    await expect(quiet).resolves.toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ticks).toBe(2);
  });

  it('a log line goes to stderr led by its time', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9, 0, 0) });
    const lines: string[] = [];
    timedLog({ err: (t) => lines.push(t) })('POST /api 200');
    expect(lines).toEqual(['2026-11-28T09:00:00.000Z POST /api 200\n']);
  });
});
