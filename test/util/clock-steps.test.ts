import { describe, expect, it } from 'vitest';
import { ClockStepWatch, describeStep, STEPS_KEPT_MS, stepSize } from '../../src/util/clock-steps.js';
import { fakeClock } from '../helpers/tmp.js';

/** Box clock steps, told apart from time passing by the monotonic clock (the clock seam's `step`). */
describe('ClockStepWatch', () => {
  it('sees a step back and forward, not time passing; a step and its undoing add up to nothing', () => {
    const clock = fakeClock();
    const watch = new ClockStepWatch(clock);
    const told: number[] = [];
    watch.onStep((s) => told.push(s.deltaMs));
    clock.advance(3_600_000); // an hour passes (the event loop held: both clocks move)
    expect(watch.check()).toBeUndefined();
    clock.advance(1000);
    clock.step(-3_600_000);
    expect(watch.check()?.deltaMs).toBe(-3_600_000);
    expect(watch.behindMs()).toBe(3_600_000);
    expect(watch.netStepMs()).toBe(-3_600_000);
    clock.advance(1000);
    expect(watch.check()).toBeUndefined();
    clock.advance(1000);
    clock.step(3_600_000 + 300); // restored (by hand, 300 ms off)
    expect(watch.check()?.deltaMs).toBe(3_600_300);
    expect(watch.behindMs()).toBe(0);
    expect(watch.netStepMs()).toBe(0);
    expect(told).toEqual([-3_600_000, 3_600_300]);
    expect(watch.recent()).toHaveLength(2);
  });

  it('ignores slews under the threshold, and forgets steps after a day of real time, however the clock stepped', () => {
    const clock = fakeClock();
    const watch = new ClockStepWatch(clock);
    clock.advance(1000);
    clock.step(1500);
    expect(watch.check()).toBeUndefined();
    clock.step(-7_200_000);
    watch.check();
    // A day of real time later (the wall clock, two hours back, says less), the step is forgotten.
    clock.advance(STEPS_KEPT_MS - 1000);
    expect(watch.recent()).toHaveLength(1);
    clock.advance(2000);
    expect(watch.recent()).toHaveLength(0);
    expect(watch.behindMs()).toBe(0);
  });

  it('names a step in plain words', () => {
    expect(stepSize(-3_600_000)).toBe('1 h');
    expect(stepSize(5_400_000)).toBe('1 h 30 min');
    expect(stepSize(200_000)).toBe('3 min 20 s');
    expect(stepSize(-45_000)).toBe('45 s');
    expect(stepSize(3 * 86_400_000)).toBe('3 days');
    expect(describeStep({ at: Date.UTC(2026, 10, 22, 11, 0, 0), deltaMs: -3_600_000 })).toMatch(
      /^the box clock stepped back 1 h at 2026-11-22 \d\d:00:00 [+-]\d\d:\d\d$/,
    );
  });
});
