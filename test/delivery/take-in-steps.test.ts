import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryQueue } from '../../src/journal/types.js';
import { makePunches, startRig, type Rig } from './helpers.js';

/**
 * A second sink back after an outage takes in its backlog before it picks (its oldest punch
 * first): the deliverer does that a bounded step at a time (SinkQueue.takeInStep), the event
 * loop free between steps, so a year's backlog is never taken in by one claim on the loop.
 */
describe('deliverer: a queue that takes in its backlog in steps', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('takes every step before it claims, and lets the loop run between steps', async () => {
    rig = await startRig();
    const journal = rig.journal;
    journal.ingest(makePunches(5));
    let steps = 0;
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    const ticksAtStep: number[] = [];
    let stepsAtClaim = -1;
    const queue: DeliveryQueue = {
      claim: (limit, opts) => {
        stepsAtClaim = steps;
        return journal.claim(limit, opts);
      },
      settle: (o) => journal.settle(o),
      release: (ids) => journal.release(ids),
      together: (fn) => journal.together(fn),
      nextDueAt: () => journal.nextDueAt(),
      dueCount: (o) => journal.dueCount(o),
      takeInStep: () => {
        ticksAtStep.push(ticks);
        return ++steps < 4;
      },
    };
    const d = rig.makeDeliverer({ queue });
    tick();
    const report = await d.deliverBatch();
    ticking = false;
    expect(report.delivered).toBe(5);
    expect(stepsAtClaim).toBe(4);
    // Each step after the first came after the loop ran (an immediate between them).
    for (let i = 1; i < ticksAtStep.length; i++) expect(ticksAtStep[i]!).toBeGreaterThan(ticksAtStep[i - 1]!);
  });
});
