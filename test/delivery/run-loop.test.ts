import { afterEach, describe, expect, it } from 'vitest';
import { abortableSleep } from '../../src/delivery/index.js';
import { makePunches, startRig, type Rig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/** The daemon loop, with real (short) waits: a clock that runs at real speed from the fake start. */
describe('Deliverer.run', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  function liveDeliverer(r: Rig) {
    const start = r.clock.now();
    const t0 = Date.now();
    return r.makeDeliverer({ clock: { now: () => start + (Date.now() - t0) }, sleep: abortableSleep });
  }

  it('sleeps while idle, delivers at once when woken, and stops promptly on abort', async () => {
    rig = await startRig({ delivery: { pollIntervalMs: 60_000 } });
    const d = liveDeliverer(rig);
    const stop = new AbortController();
    const running = d.run(stop.signal);
    await new Promise((r) => setTimeout(r, 30));
    const punches = makePunches(23);
    rig.journal.ingest(punches);
    d.wake();
    await waitFor(() => rig!.journal.queries.counts().delivered === 23, 10_000, 'the woken delivery');
    expect(rig.sim.requests()).toBe(3);
    const t = Date.now();
    stop.abort();
    await running;
    // Promptly: far below the 60 s idle sleep, with room for a loaded CI box.
    expect(Date.now() - t).toBeLessThan(5000);
    expect(rig.journal.queries.counts()).toMatchObject({ delivered: 23, pending: 0, inflight: 0 });
  });

  it('an abort during a request releases its punches; the HRMS may have kept them: resent, they come back duplicate', async () => {
    // The answer takes 6 s (within the request's 20 s deadline): an abort that waited for it would
    // take that long; the bound below leaves room for a loaded CI box (a 600 ms answer against a
    // 300 ms bound failed by chance).
    rig = await startRig({
      delivery: { pollIntervalMs: 10 },
      hrms: { timeoutMs: 20_000 },
      sim: { faults: { latencyMs: 6000 } },
    });
    const d = liveDeliverer(rig);
    const punches = makePunches(6);
    rig.journal.ingest(punches);
    const stop = new AbortController();
    const running = d.run(stop.signal);
    await waitFor(() => rig!.sim.requests() === 1);
    const t = Date.now();
    stop.abort();
    await running;
    expect(Date.now() - t).toBeLessThan(3000);
    expect(rig.journal.queries.counts()).toMatchObject({ pending: 6, inflight: 0, delivered: 0 });
    expect(rig.journal.queries.list().every((p) => p.attempts === 0)).toBe(true);
    expect(d.counters().batches.aborted).toBe(1);

    // The simulator finishes the request it was sleeping on and records the punches.
    await waitFor(() => rig!.sim.received().length === 6);
    rig.sim.setFaults({ latencyMs: 0 });
    const report = await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(report).toMatchObject({ delivered: 0, duplicates: 6 });
    expect(rig.sim.attendance()).toHaveLength(6);
    expect(rig.journal.queries.counts()).toMatchObject({ delivered: 6, pending: 0 });
  });

  it('keeps running through a failing HRMS, then delivers when it recovers', async () => {
    rig = await startRig({
      delivery: { pollIntervalMs: 10, retry: { baseMs: 20, maxMs: 40 } },
      sim: { faults: { errorRate: 1 } },
    });
    const d = liveDeliverer(rig);
    rig.journal.ingest(makePunches(12));
    const stop = new AbortController();
    const running = d.run(stop.signal);
    await waitFor(() => rig!.sim.requests() >= 3);
    const c = rig.journal.queries.counts();
    expect([c.pending + c.inflight, c.delivered, rig.sim.received().length]).toEqual([12, 0, 0]);
    expect(rig.journal.queries.list().every((p) => p.attempts === 0)).toBe(true);
    await waitFor(() => /Service temporarily unavailable/.test(rig!.journal.deliveryState.get().lastError ?? ''));
    rig.sim.setFaults({ errorRate: 0 });
    await waitFor(() => rig!.journal.queries.counts().delivered === 12);
    stop.abort();
    await running;
    expect(rig.sim.attendance()).toHaveLength(12);
    // Recovered: the error said while it held is no longer said.
    expect(rig.journal.deliveryState.get()).toMatchObject({ lastError: null, failingSince: null });
  });
});
