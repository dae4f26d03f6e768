import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makePunches, startRig, type Rig } from './helpers.js';

const HOUR = 3_600_000;

/**
 * The pause after a refused token is measured on the monotonic clock, and "another process
 * delivered meanwhile" is told by a new success, not by comparing wall-clock times: a step of the
 * box clock (NTP after a cold start without RTC, an admin) neither ends it early nor hides a
 * flush that got through. The fake clock here steps its wall clock only.
 */
describe('the pause after a refused token, when the box clock steps', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  /** Runs the loop until `ms` of monotonic time went by (its sleeps move the fake clock). */
  async function runFor(r: Rig, ms: number, onSleep?: (elapsed: number) => Promise<void>): Promise<number[]> {
    const stop = new AbortController();
    const start = r.clock.elapsed();
    const sleeps: number[] = [];
    const d = r.makeDeliverer({
      sleep: async (wait: number) => {
        sleeps.push(wait);
        r.clock.advance(wait);
        await onSleep?.(r.clock.elapsed() - start);
        if (r.clock.elapsed() - start >= ms) stop.abort();
      },
    });
    await d.run(stop.signal);
    await d.close();
    return sleeps;
  }

  it('a step back before the refusal does not end the pause at once (the refused token is not sent every second)', async () => {
    rig = await startRig({ delivery: { authRetryMs: 180_000, pollIntervalMs: 1000 } });
    rig.journal.ingest(makePunches(5));
    await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(rig.journal.queries.counts().delivered).toBe(5);
    // The box clock steps back two hours; then the token is refused.
    rig.clock.step(-2 * HOUR);
    writeFileSync(rig.tokenFile, 'a-token-the-hrms-refuses\n');
    rig.journal.ingest(makePunches(5, { start: 600 }));
    const before = rig.sim.requests();
    await runFor(rig, 60_000);
    // One refused request, then the pause (3 min) holds: not one a second for the length of the step.
    expect(rig.sim.requests() - before).toBe(1);
    expect(rig.journal.queries.counts()).toMatchObject({ delivered: 5, pending: 5 });
  });

  it('a flush that got through while the clock stepped back ends the pause all the same; every punch delivered once', async () => {
    rig = await startRig({ delivery: { authRetryMs: 180_000, pollIntervalMs: 1000 }, token: 'refused-for-now' });
    const r = rig;
    r.journal.ingest(makePunches(5));
    let flushedAt: number | undefined;
    let resumedAt: number | undefined;
    await runFor(r, 60_000, async (elapsed) => {
      if (flushedAt === undefined && elapsed >= 10_000) {
        flushedAt = elapsed;
        // The HRMS accepts the token again, the box clock steps back an hour, and a flush
        // (another process in life) delivers what waits; then more punches come in.
        r.sim.addToken('refused-for-now');
        r.clock.step(-HOUR);
        const flush = r.makeDeliverer();
        expect(await flush.drain({ maxWaitMs: 0 })).toMatchObject({ delivered: 5 });
        r.journal.ingest(makePunches(3, { start: 900 }));
      }
      if (resumedAt === undefined && r.journal.queries.counts().delivered === 8) resumedAt = elapsed;
    });
    // The daemon saw the flush's success: it resumed within seconds, not at the end of its 3 min pause.
    expect(resumedAt! - flushedAt!).toBeLessThan(5000);
    expect(r.journal.queries.counts()).toMatchObject({ delivered: 8, pending: 0, inflight: 0 });
    expect(r.sim.attendance()).toHaveLength(8);
  });

  it("a flush's bound on waiting (maxWaitMs) is on the monotonic clock: a step back does not stretch it", async () => {
    rig = await startRig({ delivery: { retry: { baseMs: 5000, maxMs: 20_000 } }, sim: { faults: { errorRate: 1 } } });
    const r = rig;
    r.journal.ingest(makePunches(3));
    const start = r.clock.elapsed();
    let sleeps = 0;
    const stop = new AbortController();
    const flush = r.makeDeliverer({
      sleep: async (wait: number) => {
        r.clock.advance(wait);
        r.clock.step(-HOUR); // the box clock stepped back at every wait
        if (++sleeps >= 50) stop.abort(); // the old deadline never came
      },
    });
    const report = await flush.drain({ maxWaitMs: 60_000, signal: stop.signal });
    expect(report.stoppedBy).toBe('max-wait');
    expect(r.clock.elapsed() - start).toBeLessThanOrEqual(60_000);
    expect(r.journal.queries.counts()).toMatchObject({ pending: 3, delivered: 0 });
  });
});
