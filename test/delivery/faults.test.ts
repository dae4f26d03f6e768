import { afterEach, describe, expect, it } from 'vitest';
import { expectDeliveredExactlyOnce, makePunches, startRig, type Rig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Every fault switch of the simulator, against the real journal: nothing is lost, and a punch
 * the HRMS accepted is sent again only when its outcome was unknown to us.
 */
describe('delivery under HRMS faults', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  const received = (r: Rig) => r.sim.received();

  it('delivers everything once with no fault, in log-time order, one request at a time', async () => {
    rig = await startRig();
    const punches = makePunches(35);
    rig.journal.ingest([...punches].reverse());
    const report = await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(report).toMatchObject({
      delivered: 35,
      duplicates: 0,
      rejected: 0,
      remainingPending: 0,
      stoppedBy: 'done',
      requests: 4,
    });
    expectDeliveredExactlyOnce(rig, punches);
    expect(received(rig).map((p) => p.logDate)).toEqual(punches.map((p) => p.logTime));
    expect(rig.journal.deliveryState.get()).toMatchObject({ auth: 'ok', lastResult: '5 sent: 5 delivered' });
  });

  it('5xx (errorRate): retried with backoff; nothing processed by a failed request is resent', async () => {
    rig = await startRig({ sim: { faults: { errorRate: 0.4, seed: 11 } } });
    const punches = makePunches(60);
    rig.journal.ingest(punches);
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expect(report.stoppedBy).toBe('done');
    expectDeliveredExactlyOnce(rig, punches);
    // A 503 records nothing: every punch reached the HRMS exactly once.
    expect(received(rig)).toHaveLength(60);
    expect(rig.deliverer.counters().batches.transient).toBeGreaterThan(0);
    expect(rig.sleeps.length).toBeGreaterThan(0);
    expect(rig.journal.queries.list({ state: 'delivered' }).every((p) => p.attempts === 1)).toBe(true);
  });

  it('connection reset before processing (resetRate): retried, never duplicated', async () => {
    rig = await startRig({ sim: { faults: { resetRate: 0.4, seed: 5 } } });
    const punches = makePunches(50);
    rig.journal.ingest(punches);
    await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expectDeliveredExactlyOnce(rig, punches);
    expect(received(rig)).toHaveLength(50);
    expect(rig.deliverer.counters().batches.transient).toBeGreaterThan(0);
  });

  it('connection reset after processing: the unknown outcome is resent and answered as duplicate', async () => {
    rig = await startRig({ sim: { faults: { resetRate: 0.4, resetAfterProcessing: true, seed: 5 } } });
    const punches = makePunches(50);
    rig.journal.ingest(punches);
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expectDeliveredExactlyOnce(rig, punches);
    const resent = received(rig).filter((p) => p.outcome === 'duplicate');
    expect(resent.length).toBeGreaterThan(0);
    expect(received(rig)).toHaveLength(50 + resent.length);
    // Each resend was of a batch whose answer was lost: those punches are marked as duplicates.
    expect(report.duplicates).toBe(resent.length);
    expect(rig.journal.queries.list({ state: 'delivered' }).filter((p) => p.duplicate)).toHaveLength(resent.length);
  });

  it('a body that is not JSON (nonJsonRate): retried, nothing lost or duplicated', async () => {
    rig = await startRig({ sim: { faults: { nonJsonRate: 0.5, seed: 3 } } });
    const punches = makePunches(40);
    rig.journal.ingest(punches);
    await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expectDeliveredExactlyOnce(rig, punches);
    expect(received(rig)).toHaveLength(40);
    const state = rig.journal.deliveryState.get();
    // The bad replies were retried and the last batch went through: no error holds any more.
    expect(state.lastError).toBeNull();
    expect(state.lastResult).toMatch(/^\d+ sent: \d+ delivered$/);
    expect(rig.deliverer.counters().batches['bad-reply']).toBeGreaterThan(0);
  });

  it('latency beyond the timeout: the timed-out batch (recorded by the HRMS after all) is resent as duplicates', async () => {
    rig = await startRig({ hrms: { timeoutMs: 100, connectTimeoutMs: 100 }, sim: { faults: { latencyMs: 500 } } });
    const punches = makePunches(15);
    rig.journal.ingest(punches);
    const first = await rig.deliverer.deliverBatch();
    expect(first).toMatchObject({ result: 'transient', released: 10, delivered: 0 });
    expect(first.message).toMatch(/timeout/i);
    expect(rig.journal.queries.counts()).toMatchObject({ pending: 15, inflight: 0 });
    expect(rig.journal.queries.list({ state: 'pending' }).every((p) => p.attempts === 0)).toBe(true);
    rig.sim.setFaults({ latencyMs: 0 });
    // The simulator still processes the request it was sleeping on.
    await waitFor(() => rig!.sim.received().length === 10);
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expect(report).toMatchObject({ delivered: 5, duplicates: 10, stoppedBy: 'done' });
    expectDeliveredExactlyOnce(rig, punches);
  });

  it('short Payload: nothing is confirmed (a bad reply); resent, what the HRMS had kept comes back duplicate', async () => {
    rig = await startRig({ sim: { faults: { shortPayload: 3 } } });
    const punches = makePunches(20);
    rig.journal.ingest(punches);
    const first = await rig.deliverer.deliverBatch();
    expect(first).toMatchObject({ result: 'bad-reply', delivered: 0, released: 10 });
    expect(first.message).toMatch(/3 results for 10 punches sent/);
    expect(rig.journal.queries.counts()).toMatchObject({ delivered: 0, pending: 20, inflight: 0 });
    expect(rig.journal.queries.list().every((p) => p.attempts === 0)).toBe(true);
    rig.sim.setFaults({ shortPayload: 0 });
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expect(report).toMatchObject({ stoppedBy: 'done', duplicates: 3 });
    expectDeliveredExactlyOnce(rig, punches);
  });

  it('rate limit (429 + Retry-After): waits at least Retry-After, nothing lost', async () => {
    rig = await startRig({
      sim: { faults: { rateLimitPerSecond: 1 } },
      delivery: { batchSize: 5, retry: { baseMs: 10, maxMs: 50 } },
    });
    const punches = makePunches(20);
    rig.journal.ingest(punches);
    const report = await rig.deliverer.drain({ maxWaitMs: 60_000 });
    expect(report.stoppedBy).toBe('done');
    expectDeliveredExactlyOnce(rig, punches);
    expect(received(rig)).toHaveLength(20);
    expect(rig.sleeps.length).toBeGreaterThanOrEqual(3);
    expect(rig.sleeps.every((ms) => ms >= 1000)).toBe(true);
  });

  it('HTTP 413 (maxBatch): the batch size is halved until it fits', async () => {
    rig = await startRig({ sim: { faults: { maxBatch: 4 } }, delivery: { batchSize: 20 } });
    const punches = makePunches(30);
    rig.journal.ingest(punches);
    const report = await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(report.stoppedBy).toBe('done');
    expect(rig.deliverer.batchSize).toBe(2);
    expect(rig.deliverer.counters().batches['too-large']).toBe(3);
    expectDeliveredExactlyOnce(rig, punches);
    expect(rig.journal.queries.list({ state: 'delivered' }).every((p) => p.attempts === 1)).toBe(true);
  });

  it('a poisonous punch is isolated by splitting: the rest delivered, that one rejected', async () => {
    rig = await startRig({ sim: { faults: { poisonCodes: ['666'] } }, delivery: { batchSize: 16 } });
    const punches = makePunches(16);
    const poison = { terminal: 'gate-1', biometricCode: '666', logTime: '2026-11-01 00:05:30' };
    rig.journal.ingest([...punches, poison]);
    const report = await rig.deliverer.drain({ maxWaitMs: 0 });
    expect(report).toMatchObject({ delivered: 16, rejected: 1, stoppedBy: 'done', remainingPending: 0 });
    expect(rig.sim.attendance()).toHaveLength(16);
    const [bad] = rig.journal.queries.list({ state: 'rejected' });
    expect(bad).toMatchObject({ biometricCode: '666', attempts: 1 });
    expect(bad!.lastMessage).toMatch(/666 cannot be processed/);
    expect(bad!.nextAttemptAt).toBe(rig.clock.now() + 3_600_000);
    expect(rig.deliverer.counters().splits).toBeGreaterThan(0);
  });

  it('lower-case keys (status/payload) are understood like the capitalised ones', async () => {
    rig = await startRig({ sim: { keyStyle: 'lower' } });
    const punches = makePunches(12);
    rig.journal.ingest(punches);
    rig.journal.ingest(punches.slice(0, 2).map((p) => ({ ...p, terminal: 'gate-2' })));
    const report = await rig.deliverer.drain({ maxWaitMs: 0 });
    // The same employee and time from a second terminal is the HRMS's duplicate: delivered, flagged.
    expect(report).toMatchObject({ delivered: 12, duplicates: 2, rejected: 0 });
    expect(rig.journal.queries.counts()).toMatchObject({ delivered: 14, pending: 0 });
  });

  it('all faults at once, seeded: nothing lost, accepted punches resent only after an unknown outcome', async () => {
    rig = await startRig({
      sim: {
        faults: {
          errorRate: 0.2,
          resetRate: 0.2,
          resetAfterProcessing: true,
          nonJsonRate: 0.2,
          seed: 42,
        },
      },
      delivery: { batchSize: 9 },
    });
    const punches = makePunches(120);
    rig.journal.ingest(punches);
    await rig.deliverer.drain({ maxWaitMs: 24 * 3_600_000 });
    expectDeliveredExactlyOnce(rig, punches);
    const dups = received(rig).filter((p) => p.outcome === 'duplicate');
    expect(received(rig)).toHaveLength(120 + dups.length);
    // Flagged duplicate in the journal = the punches the HRMS had recorded from an answer we never got.
    const resentPunches = new Set(dups.map((p) => `${p.biometriccode}|${p.logDate}`));
    const flagged = rig.journal.queries.list({ state: 'delivered' }).filter((p) => p.duplicate);
    expect(flagged.map((p) => `${p.biometricCode}|${p.logTime}`).sort()).toEqual([...resentPunches].sort());
  });
});
