import { describe, expect, it } from 'vitest';
import { agreesBeforeBoxStep } from '../../src/sources/types.js';
import { ClockStepWatch } from '../../src/util/clock-steps.js';
import { fakeClock } from '../helpers/tmp.js';

const DAY = 86_400_000;

/**
 * Found by a trial under faketime: `punchgate run` started on a box clock 3 days behind (a box
 * without a real-time clock, before NTP) with `syncClock`, and set the ZK terminal 3 days back.
 * NTP then set the box right (a step forward of 3 days), and every poll said "terminal clock not
 * set: it agrees with the box's clock from before the box clock stepped (set the box clock
 * right)": the terminal stayed 3 days back for a day, and its punches went to the HRMS so dated.
 */
describe('a terminal clock punchgate set from the box clock before the box stepped', () => {
  it('is set again after the step; one punchgate never set still is not (the box may have stepped wrong)', () => {
    const clock = fakeClock();
    const steps = new ClockStepWatch(clock);
    clock.advance(5000);
    steps.terminalClockSet('gate-1'); // syncClock at the first poll, from the stale box clock
    clock.advance(60_000);
    clock.step(3 * DAY); // NTP sets the box right
    steps.check();
    clock.advance(10_000);
    // Both terminals show the box's time of before the step: 3 days behind it now.
    expect(agreesBeforeBoxStep(-3 * 86_400, steps, 60, 'gate-1')).toBe(false);
    expect(agreesBeforeBoxStep(-3 * 86_400, steps, 60, 'gate-2')).toBe(true);
  });

  it('a terminal set after the step agrees with the box of now: nothing held against it', () => {
    const clock = fakeClock();
    const steps = new ClockStepWatch(clock);
    clock.advance(5000);
    clock.step(-2 * 3_600_000); // a bad step back
    steps.check();
    clock.advance(1000);
    steps.terminalClockSet('gate-1'); // set after it: the step is not of its doing
    clock.advance(1000);
    expect(steps.terminalSetBeforeStep('gate-1')).toBe(false);
    expect(agreesBeforeBoxStep(2 * 3600, steps, 60, 'gate-1')).toBe(true);
  });
});
