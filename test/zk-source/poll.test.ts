import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal, REDOWNLOAD_AFTER_MS } from '../../src/sources/zk/poll.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';
import { expectNoSecret } from '../helpers/secret.js';
import { waitFor } from '../helpers/wait.js';
import type { Journal } from '../../src/journal/index.js';

const simKeys = (sim: TerminalSim) => [...new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`))].sort();

describe('ZK polling source: one poll', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function setup(opts: Parameters<typeof startTerminalSim>[0] = {}) {
    const sim = await startTerminalSim({
      generate: { users: 20, punches: 500, startTime: '2026-01-05 08:00:00', seed: 1 },
      ...opts,
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    return { sim, ...fx };
  }

  /** A terminal with two punches of 2025 on it (old enough for clearAfterDays: 30), nothing generated. */
  const twoOldPunches = () =>
    setup({
      punches: [
        { userId: '1', logTime: '2025-01-01 08:00:00' },
        { userId: '2', logTime: '2025-01-01 09:00:00' },
      ],
      generate: undefined,
    });

  it('journals every punch once, records the terminal, and a second poll adds nothing', async () => {
    const { sim, journal, deps, woken } = await setup({ serialNumber: 'SN-A', clock: '2026-11-22 12:00:30' });
    const r1 = await pollTerminal(zkConfig(sim.port), deps);
    expect(r1).toMatchObject({ ok: true, serial: 'SN-A', records: 500, users: 20 });
    expect(journalKeys(journal)).toEqual(simKeys(sim));
    expect(woken.length).toBe(1);
    const rec = journal.terminals.get('gate-1')!;
    expect(rec).toMatchObject({ online: true, serial: 'SN-A', records: 500, users: 20, lastError: null });
    expect(rec.skewSeconds).not.toBeNull();
    const r2 = await pollTerminal(zkConfig(sim.port), deps);
    expect(r2).toMatchObject({ ok: true, added: 0, duplicates: 500 });
    const row = journal.queries.list({ limit: 1 })[0]!;
    expect(row.device).toBe('SN-A');
    expect(row.verifyType).not.toBeNull();
  });

  it('skips the download while the log is unchanged; reads it again on a new punch, after an hour, or from another device', async () => {
    let now = Date.parse('2026-11-22T12:00:00Z');
    const sim = await startTerminalSim({
      generate: { users: 20, punches: 500, startTime: '2026-01-05 08:00:00', seed: 1 },
      serialNumber: 'SN-A',
    });
    const fx = journalFixture(() => now);
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port);
    const r1 = await pollTerminal(cfg, fx.deps);
    expect(r1).toMatchObject({
      ok: true,
      unchanged: false,
      added: 500,
      download: { serial: 'SN-A', records: 500, at: now },
    });

    now += 60_000;
    const r2 = await pollTerminal(cfg, fx.deps, undefined, undefined, r1.download);
    expect(r2).toMatchObject({ ok: true, unchanged: true, records: 500, added: 0, duplicates: 0 });
    expect(r2.download).toBeUndefined();
    expect(fx.journal.terminals.get('gate-1')).toMatchObject({ online: true, records: 500, lastSuccessAt: now });

    sim.addPunch({ userId: '7', logTime: '2026-11-22 12:01:00' });
    now += 60_000;
    const r3 = await pollTerminal(cfg, fx.deps, undefined, undefined, r1.download);
    expect(r3).toMatchObject({ ok: true, unchanged: false, added: 1, duplicates: 500, download: { records: 501 } });

    now += REDOWNLOAD_AFTER_MS - 1;
    expect(await pollTerminal(cfg, fx.deps, undefined, undefined, r3.download)).toMatchObject({ unchanged: true });
    now += 1;
    expect(await pollTerminal(cfg, fx.deps, undefined, undefined, r3.download)).toMatchObject({
      unchanged: false,
      duplicates: 501,
    });

    sim.setSerialNumber('SN-B');
    expect(await pollTerminal(cfg, fx.deps, undefined, undefined, r3.download)).toMatchObject({
      unchanged: false,
      added: 501,
    });
    expect(fx.journal.counts().pending).toBe(1002);
  });

  it('authenticates with the right comm key and fails clearly with a wrong one', async () => {
    const { sim, journal, deps } = await setup({ commKey: 271828 });
    const bad = await pollTerminal(zkConfig(sim.port, { commKey: 1234 }), deps);
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/comm key/i);
    expectNoSecret(bad.error ?? '', '1234');
    expect(journal.counts().pending).toBe(0);
    const good = await pollTerminal(zkConfig(sim.port, { commKey: 271828 }), deps);
    expect(good.ok).toBe(true);
    expect(journal.counts().pending).toBe(500);
  });

  it('marks an unreachable terminal offline with the time it went away', async () => {
    const { sim, journal, deps } = await setup();
    const port = sim.port;
    await sim.stop();
    const r = await pollTerminal(zkConfig(port, { transport: 'tcp' }), deps);
    expect(r.ok).toBe(false);
    expect(journal.terminals.get('gate-1')).toMatchObject({ online: false });
    expect(journal.terminals.get('gate-1')!.offlineSince).not.toBeNull();
  });

  it('keeps the logs of a swapped device apart and says so', async () => {
    const { sim, journal, deps } = await setup({ serialNumber: 'OLD' });
    await pollTerminal(zkConfig(sim.port), deps);
    sim.setSerialNumber('NEW');
    const r = await pollTerminal(zkConfig(sim.port), deps);
    expect(r.added).toBe(500); // same records, another device: a separate log
    expect(journal.terminals.get('gate-1')).toMatchObject({ serial: 'NEW', previousSerial: 'OLD' });
  });

  it('measures clock skew in the terminal time zone and sets the clock when asked', async () => {
    const { sim, journal, deps } = await setup({ clock: '2020-01-01 00:00:00' });
    const r = await pollTerminal(zkConfig(sim.port, { syncClock: true, skewThresholdSeconds: 30 }), deps);
    expect(r.ok).toBe(true);
    expect(r.skewSeconds!).toBeLessThan(-86400 * 365);
    const r2 = await pollTerminal(zkConfig(sim.port), deps);
    expect(Math.abs(r2.skewSeconds!)).toBeLessThan(20); // set: not years off (20: room for a loaded box)
    expect(journal.terminals.get('gate-1')!.skewSeconds).toBe(r2.skewSeconds);
  });

  it('clears the log only when every record is delivered and old enough', async () => {
    const { sim, journal, deps } = await twoOldPunches();
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    const first = await pollTerminal(cfg, deps);
    expect(first.cleared).toBe(false);
    // Deliver one of two: still refused.
    const [a] = journal.claim(1);
    journal.settle([{ id: a!.id, kind: 'delivered' }]);
    expect((await pollTerminal(cfg, deps)).cleared).toBe(false);
    expect(sim.clearCount()).toBe(0);
    // A punch that is not delivered yet appears on the terminal: still refused.
    const [b] = journal.claim(1);
    journal.settle([{ id: b!.id, kind: 'delivered' }]);
    sim.addPunch({ userId: '3', logTime: '2025-01-02 08:00:00' });
    expect((await pollTerminal(cfg, deps)).cleared).toBe(false);
    const [c] = journal.claim(1);
    journal.settle([{ id: c!.id, kind: 'delivered' }]);
    // Everything delivered and older than 30 days: cleared.
    expect((await pollTerminal(cfg, deps)).cleared).toBe(true);
    expect(sim.clearCount()).toBe(1);
    expect(sim.punches()).toHaveLength(0);
    expect(journal.counts().delivered).toBe(3);
  });

  it('does not clear the log while another sink has not delivered every record (found by a new-user trial)', async () => {
    const { sim, journal, deps } = await twoOldPunches();
    // An Odoo sink beside the HRMS, there before the punches: it owes them all.
    journal.useSinks({ defaultSink: 'hrms', others: ['odoo'] });
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    expect((await pollTerminal(cfg, deps)).cleared).toBe(false);
    journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // Delivered to the HRMS, refused by Odoo: the terminal's log is their last copy, kept.
    const odoo = journal.sinkQueue('odoo');
    const owed = odoo.claim(10);
    expect(owed).toHaveLength(2);
    odoo.settle(owed.map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'no employee with this badge' })));
    expect((await pollTerminal(cfg, deps)).cleared).toBe(false);
    expect(sim.clearCount()).toBe(0);
    // Delivered to Odoo too: cleared.
    journal.db.prepare(`UPDATE sink_deliveries SET state = 'delivered' WHERE sink = 'odoo'`).run();
    expect((await pollTerminal(cfg, deps)).cleared).toBe(true);
    expect(sim.clearCount()).toBe(1);
  });

  it("clears the log only once this poll's punches are on the disk; a failed disk sync clears nothing", async () => {
    const { sim, journal, deps } = await twoOldPunches();
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    // Journalled (synced beside the event loop, through the real journal) and delivered.
    expect((await pollTerminal(cfg, deps)).added).toBe(2);
    journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // A journal whose disk sync the test ends by hand.
    let endSync: (e?: Error) => void = () => undefined;
    let ingested = false;
    const heldSink = {
      ingest: journal.ingest.bind(journal),
      ingestSyncedLater: (p: Parameters<Journal['ingest']>[0], o: Parameters<Journal['ingest']>[1]) => {
        ingested = true;
        return {
          result: journal.ingest(p, o),
          synced: new Promise<void>((resolve, reject) => (endSync = (e) => (e ? reject(e) : resolve()))),
        };
      },
    };
    const failing = pollTerminal(cfg, { ...deps, sink: heldSink });
    await waitFor(() => ingested, 10_000, 'the download journalled');
    endSync(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    const failed = await failing;
    expect(failed).toMatchObject({ ok: false, cleared: false });
    expect(failed.error).toMatch(/EIO/);
    expect(sim.clearCount()).toBe(0);
    expect(sim.punches()).toHaveLength(2);
    // The sync ends well: only then is the log cleared.
    ingested = false;
    const clearing = pollTerminal(cfg, { ...deps, sink: heldSink });
    await waitFor(() => ingested, 10_000, 'the download journalled');
    await new Promise((r) => setImmediate(r));
    expect(sim.clearCount()).toBe(0);
    endSync();
    expect(await clearing).toMatchObject({ ok: true, cleared: true });
    expect(sim.clearCount()).toBe(1);
    expect(journal.counts().delivered).toBe(2);
  });

  it('does not clear a log whose records are younger than clearAfterDays', async () => {
    const { sim, journal, deps } = await setup({
      punches: [
        { userId: '1', logTime: new Date(Date.now() - 86_400_000).toISOString().slice(0, 19).replace('T', ' ') },
      ],
      generate: undefined,
    });
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    await pollTerminal(cfg, deps);
    const [a] = journal.claim(1);
    journal.settle([{ id: a!.id, kind: 'delivered' }]);
    expect((await pollTerminal(cfg, deps)).cleared).toBe(false);
    expect(sim.clearCount()).toBe(0);
  });
});
