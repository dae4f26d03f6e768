import { describe, expect, it } from 'vitest';
import { AttendanceLog, generatePushUsers } from '../../src/sim/push-terminal/log.js';

/**
 * Found by an integrator's rehearsal (helper C4): a push terminal simulator and a Security PUSH one
 * started with their own seeds (21 and 22), as docs/simulators.md says to, still put 11 of their 80
 * punches on the same code at the same second (their logs of the past were the same 7-second grid,
 * only the codes were drawn by the seed), and the HRMS counted each pair once: the rehearsal's count
 * at the HRMS came out 11 short of what the simulators sent. The seed now also sets the grid's second.
 */
describe('the push terminal simulator’s log of the past', () => {
  const now = Date.parse('2026-12-02T09:30:00Z');
  const logOf = (seed: number, n: number) => {
    const users = generatePushUsers(10, seed);
    const log = new AttendanceLog(
      () => users,
      { timeMode: 'clock', seed, timezone: 'UTC' },
      () => now,
    );
    log.addPast(n);
    return log.all().map((r) => `${r.pin}@${r.logTime}`);
  };

  it('never puts two simulators of other seeds (1 to 7) on the same code at the same second', () => {
    const seen = new Map<string, number>();
    for (let seed = 1; seed <= 7; seed++)
      for (const k of logOf(seed, 300)) {
        expect(seen.get(k), `${k}: seeds ${seen.get(k)} and ${seed}`).toBeUndefined();
        seen.set(k, seed);
      }
    expect(seen.size).toBe(7 * 300);
  });

  it('gives the same log for the same seed, 7 s apart, ending about a minute ago', () => {
    const a = logOf(3, 50);
    expect(logOf(3, 50)).toEqual(a);
    const times = a.map((k) => Date.parse(`${k.split('@')[1]!.replace(' ', 'T')}Z`));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(7000);
    expect(now - times.at(-1)!).toBeGreaterThanOrEqual(60_000);
    expect(now - times.at(-1)!).toBeLessThan(75_000);
  });
});
