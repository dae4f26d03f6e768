import { Database } from '../../src/journal/sqlite-driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import { isBusyJournalError } from '../../src/journal/errors.js';
import type { DeliveryQueue } from '../../src/journal/types.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { waitFor } from '../helpers/wait.js';
import { makePunches, startRig, type Rig } from './helpers.js';

const BATCH = 50;
const PUNCHES = 230;

/**
 * Delivery nearer the wire (issue 35): one request at a time, but the journal work of the next
 * batch is done while the current one is on the wire, and the answers of a batch are settled in
 * the same transaction (one commit, one disk sync) as the claim of the batch after the next.
 * Real journal file, real client, the real HRMS simulator behind a proxy that holds its answers.
 */
describe('settle and claim while the request is on the wire', () => {
  let rig: Rig | undefined;
  let proxy: HoldingProxy | undefined;
  afterEach(async () => {
    await proxy?.stop();
    await rig?.close();
    rig = undefined;
    proxy = undefined;
  });

  it('claims the next batch before the answer comes, and settles a batch with the next claim in one commit', async () => {
    rig = await startRig({ delivery: { batchSize: BATCH } });
    const r = rig;
    const p = (proxy = await startHoldingProxy(r.sim.url));
    const punches = makePunches(PUNCHES);
    r.journal.ingest(punches);
    // Which journal calls run inside one transaction (`together`), in order.
    const calls: string[] = [];
    let inside = false;
    const j = r.journal;
    const queue: DeliveryQueue = {
      claim: (limit, o) => (calls.push(inside ? 'claim (together)' : 'claim'), j.claim(limit, o)),
      settle: (outcomes) => (calls.push(inside ? 'settle (together)' : 'settle'), j.settle(outcomes)),
      release: (ids) => (calls.push('release'), j.release(ids)),
      together: (fn) => {
        inside = true;
        try {
          return j.together(fn);
        } finally {
          inside = false;
        }
      },
      nextDueAt: () => j.nextDueAt(),
      dueCount: (o) => j.dueCount(o),
    };
    const d = r.makeDeliverer({ queue, hrms: { ...r.config.hrms!, baseUrl: p.url } });
    // Commits by any connection to the file, seen from another one (PRAGMA data_version).
    const watcher = new Database(r.config.journal.path, { readonly: true });
    const commits = () => watcher.pragma('data_version', { simple: true }) as number;
    try {
      const draining = d.drain({ maxWaitMs: 60_000 });

      // Batch 1 on the wire, its answer held: batch 2 is already claimed.
      await waitFor(
        () => p.held() === 1 && r.journal.queries.counts().inflight === 2 * BATCH,
        10_000,
        'batch 2 claimed',
      );
      expect(r.journal.queries.counts()).toMatchObject({ delivered: 0, inflight: 2 * BATCH });
      expect(calls).toEqual(['claim', 'claim']);
      const before = commits();

      // Batch 1 answered: batch 2 goes out, and while it is on the wire batch 1 is settled and
      // batch 3 claimed, in one commit (the delivery state in it too).
      p.releaseNext();
      await waitFor(
        () => p.held() === 1 && r.journal.queries.counts().delivered === BATCH,
        10_000,
        'batch 1 settled while batch 2 is out',
      );
      expect(r.journal.queries.counts()).toMatchObject({ delivered: BATCH, inflight: 2 * BATCH });
      expect(commits() - before).toBe(1);
      expect(calls.slice(2)).toEqual(['settle (together)', 'claim (together)']);
      expect(r.journal.deliveryState.get().lastSuccessAt).not.toBeNull();
      expect(p.received()).toBe(2);

      p.passThrough();
      const report = await draining;
      expect(report).toMatchObject({ delivered: PUNCHES, stoppedBy: 'done', remainingPending: 0 });
    } finally {
      watcher.close();
    }
    // One request at a time: as many requests as batches, each punch recorded once.
    expect(p.received()).toBe(Math.ceil(PUNCHES / BATCH));
    expect(r.journal.queries.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0 });
    expect(new Set(r.sim.attendance().map((a) => a.devicelogId)).size).toBe(PUNCHES);
    expect(r.sim.received()).toHaveLength(PUNCHES);
  }, 60_000);

  it('a journal busy at the settle keeps the answers and writes them once it is free', async () => {
    rig = await startRig({ delivery: { batchSize: BATCH } });
    const r = rig;
    const p = (proxy = await startHoldingProxy(r.sim.url));
    r.journal.ingest(makePunches(PUNCHES));
    const d = r.makeDeliverer({ hrms: { ...r.config.hrms!, baseUrl: p.url } });
    const draining = d.drain({ maxWaitMs: 60_000 });
    await waitFor(() => p.held() === 1 && r.journal.queries.counts().inflight === 2 * BATCH, 10_000, 'batch 2 claimed');
    // Another process takes the write lock while batch 1's answer comes back.
    const other = new Database(r.config.journal.path);
    other.pragma('busy_timeout = 0');
    r.journal.db.pragma('busy_timeout = 50');
    other.exec('BEGIN IMMEDIATE');
    try {
      p.releaseNext();
      await waitFor(() => p.held() === 1 && r.journal.keptWrites > 0, 10_000, 'the settle kept for later');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    p.passThrough();
    // The claim that met the busy journal ends this drain (busy: `flush` says so and exits 75)
    // once batch 2 is answered; what was answered is written, nothing stays inflight.
    const first = await draining.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (first !== undefined) expect(isBusyJournalError(first)).toBe(true);
    expect(r.journal.queries.counts()).toMatchObject({ delivered: 2 * BATCH, inflight: 0 });
    await d.drain({ maxWaitMs: 60_000 });
    expect(r.journal.keptWrites).toBe(0);
    expect(r.journal.queries.counts()).toMatchObject({ delivered: PUNCHES, inflight: 0, pending: 0 });
    expect(new Set(r.sim.attendance().map((a) => a.devicelogId)).size).toBe(PUNCHES);
  }, 60_000);
});
