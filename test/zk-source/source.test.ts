import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import type { Scheduler } from '../../src/sources/schedule.js';
import { ZkSource } from '../../src/sources/zk/zk-source.js';
import { journalFixture, zkConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/** A scheduler the test ticks by hand. */
function manualScheduler(): { scheduler: Scheduler; tick: () => void; stopped: () => boolean } {
  let fn: (() => void) | undefined;
  let stopped = false;
  return {
    scheduler: (_spec, tick) => ((fn = tick), () => void (stopped = true)),
    tick: () => fn?.(),
    stopped: () => stopped,
  };
}

describe('ZK source', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('one terminal that hangs does not delay another', async () => {
    const good = await startTerminalSim({
      generate: { users: 3, punches: 50, startTime: '2026-01-05 08:00:00', seed: 1 },
    });
    const hung = await startTerminalSim({
      generate: { users: 3, punches: 50, seed: 2 },
      faults: { dropReplyTo: [1000, 1503, 50, 201] },
    });
    const fx = journalFixture();
    cleanups.push(
      () => good.stop(),
      () => hung.stop(),
      fx.cleanup,
    );
    const a = new ZkSource(zkConfig(good.port, { name: 'good' }), fx.deps, { scheduler: manualScheduler().scheduler });
    // The hung terminal's timeout is long (20 s) so that the bounds below, which say the good one
    // did not wait for it, leave room for a loaded CI box (3 s against 2.5 s failed by chance).
    const b = new ZkSource(zkConfig(hung.port, { name: 'hung', timeoutMs: 20_000 }), fx.deps, {
      scheduler: manualScheduler().scheduler,
    });
    const started = Date.now();
    await Promise.all([b.start(), a.start()]);
    const expected = new Set(good.punches().map((p) => `${p.userId}@${p.logTime}`)).size;
    await waitFor(() => fx.journal.terminals.get('good')?.online === true, 15_000, 'the good terminal online');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(fx.journal.counts().pending).toBe(expected);
    // Stopping does not wait for the hung terminal's timeout.
    const stopAt = Date.now();
    await Promise.all([a.stop(), b.stop()]);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    // Never seen online; and the stop, which cut its poll short before the timeout, is not
    // recorded as the terminal's failure (test/zk-source/poll-stop.test.ts).
    expect(fx.journal.terminals.get('hung')?.online ?? false).toBe(false);
    expect(fx.journal.terminals.get('hung')?.lastError ?? null).toBeNull();
  });

  it('a real-time punch reaches the journal without waiting for a poll', async () => {
    const sim = await startTerminalSim({ users: [{ uid: 1, userId: '1042', name: 'A' }], punches: [] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const sched = manualScheduler();
    const src = new ZkSource(zkConfig(sim.port, { realtime: true }), fx.deps, { scheduler: sched.scheduler });
    cleanups.push(() => src.stop());
    await src.start();
    await waitFor(() => sim.sessions() >= 1 && fx.journal.terminals.get('gate-1')?.online === true);
    await waitFor(() => sim.sessions() === 1); // the poll's session left; the real-time one stays
    sim.addPunch({ userId: '1042', logTime: '2026-11-22 09:15:00', state: 1 });
    await waitFor(() => fx.journal.counts().pending === 1);
    const [p] = fx.journal.queries.list();
    expect(p).toMatchObject({ biometricCode: '1042', logTime: '2026-11-22 09:15:00', punchState: 1 });
    expect(fx.woken.length).toBeGreaterThan(0);
    // The next poll finds the same punch in the log and adds nothing.
    sched.tick();
    await waitFor(() => (fx.journal.terminals.get('gate-1')?.records ?? 0) === 1);
    expect(fx.journal.counts().pending).toBe(1);
  });

  it('a terminal back after its polls failed is polled as soon as its real-time link hears it, not after the backoff', async () => {
    // A new admin's trial: a terminal unplugged for 10 minutes and plugged in again sent its
    // punches live at once, but stayed OFFLINE ("unreachable for 10 min", its polls backing off to
    // every 16th tick) while they arrived: what it recorded while away was not read meanwhile.
    const sim = await startTerminalSim({ users: [{ uid: 1, userId: '1042', name: 'A' }], punches: [] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const sched = manualScheduler();
    const src = new ZkSource(zkConfig(sim.port, { realtime: true, timeoutMs: 1500 }), fx.deps, {
      scheduler: sched.scheduler,
    });
    cleanups.push(() => src.stop());
    await src.start();
    await waitFor(() => fx.journal.terminals.get('gate-1')?.online === true);
    await waitFor(() => sim.sessions() === 1); // the real-time link's session
    // Away: new connections get no answer (the real-time link's connection stays open).
    sim.setFaults({ dropReplyTo: [1000] });
    sched.tick();
    await waitFor(() => fx.journal.terminals.get('gate-1')?.online === false, 10_000, 'the failed poll');
    const failedAt = fx.journal.terminals.get('gate-1')!.lastPollAt;
    // Back: a punch arrives on the real-time link; no tick comes (the schedule is backing off).
    sim.setFaults({ dropReplyTo: [] });
    sim.addPunch({ userId: '1042', logTime: '2026-11-22 09:15:00', state: 0 });
    await waitFor(() => fx.journal.counts().pending === 1, 10_000, 'the real-time punch');
    await waitFor(
      () => fx.journal.terminals.get('gate-1')?.online === true,
      10_000,
      'the terminal polled and online again without a tick',
    );
    expect(fx.journal.terminals.get('gate-1')!.lastPollAt).toBeGreaterThan(failedAt ?? 0);
  });

  it('a terminal unplugged under its real-time link is shown offline at once, not at its next scheduled poll', async () => {
    // A new admin's trial: the log said the link dropped, while the status and check went on
    // calling the terminal online until the next tick (a minute or more).
    const sim = await startTerminalSim({ users: [{ uid: 1, userId: '1042', name: 'A' }], punches: [] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const sched = manualScheduler();
    const src = new ZkSource(zkConfig(sim.port, { realtime: true, timeoutMs: 1500 }), fx.deps, {
      scheduler: sched.scheduler,
    });
    cleanups.push(() => src.stop());
    await src.start();
    await waitFor(() => fx.journal.terminals.get('gate-1')?.online === true);
    await waitFor(() => sim.sessions() === 1); // the real-time link's session
    const polledAt = fx.journal.terminals.get('gate-1')!.lastPollAt;
    await sim.stop(); // unplugged: its connections close, and no new one is answered
    await waitFor(
      () => fx.journal.terminals.get('gate-1')?.online === false,
      10_000,
      'the terminal offline without a tick',
    );
    expect(fx.journal.terminals.get('gate-1')!.lastPollAt).toBeGreaterThan(polledAt ?? 0);
  });

  it('a scheduled poll of an unchanged terminal does not download its log again; a new punch is read on the next tick', async () => {
    const sim = await startTerminalSim({
      generate: { users: 3, punches: 50, startTime: '2026-01-05 08:00:00', seed: 1 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const manual = manualScheduler();
    const source = new ZkSource(zkConfig(sim.port), fx.deps, { scheduler: manual.scheduler });
    cleanups.push(() => source.stop());
    await source.start();
    // start() began a poll; pollNow() returns that running poll: the full download.
    const first = await source.pollNow();
    expect(first).toMatchObject({
      ok: true,
      unchanged: false,
      added: new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`)).size,
    });
    const second = await source.pollNow();
    expect(second).toMatchObject({ ok: true, unchanged: true, duplicates: 0 });
    sim.addPunch({ userId: '1', logTime: '2026-11-22 12:00:00' });
    expect(await source.pollNow()).toMatchObject({ ok: true, unchanged: false, added: 1 });
    expect(await source.pollNow()).toMatchObject({ ok: true, unchanged: true });
  });

  it('schedules its polls with the terminal schedule in the terminal time zone', async () => {
    const specs: unknown[] = [];
    const fx = journalFixture();
    cleanups.push(fx.cleanup);
    const src = new ZkSource(zkConfig(1, { schedule: '0 */5 * * * *', timezone: 'Asia/Kolkata' }), fx.deps, {
      scheduler: (spec) => (specs.push(spec), () => {}),
    });
    await src.start();
    await src.stop();
    expect(specs).toEqual([{ expression: '0 */5 * * * *', timezone: 'Asia/Kolkata', offsetMs: 0 }]); // seconds: not spread
  });
});
