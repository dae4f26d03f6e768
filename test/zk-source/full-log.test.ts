import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { activeZkNotes } from '../../src/sources/zk/notes.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

describe('ZK terminal whose log is full and overwrites its oldest records', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is read at every poll: its count stays the same while new punches replace old ones', async () => {
    let now = Date.parse('2026-11-22T12:00:00Z');
    const sim = await startTerminalSim({
      generate: { users: 20, punches: 300, startTime: '2026-01-05 08:00:00', seed: 1 },
      serialNumber: 'SN-FULL',
      logCapacity: 300,
    });
    const fx = journalFixture(() => now);
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port);
    const r1 = await pollTerminal(cfg, fx.deps);
    expect(r1).toMatchObject({ ok: true, added: 300, records: 300 });

    // Two people punch; the terminal writes over its two oldest records and still holds 300.
    sim.addPunch({ userId: '7', logTime: '2026-11-22 12:00:30' });
    sim.addPunch({ userId: '8', logTime: '2026-11-22 12:00:40' });
    expect(sim.punches()).toHaveLength(300);
    now += 60_000;
    const r2 = await pollTerminal(cfg, fx.deps, undefined, undefined, r1.download);
    expect(r2).toMatchObject({ ok: true, unchanged: false, added: 2 });
    expect(journalKeys(fx.journal)).toContain('7@2026-11-22 12:00:30');
    expect(journalKeys(fx.journal)).toContain('8@2026-11-22 12:00:40');
    expect(fx.journal.counts().pending).toBe(302);
    // The status says so, with the setting that makes room.
    const notes = activeZkNotes(fx.journal.sourceState, 'gate-1', now);
    expect(notes).toMatchObject([
      { topic: 'full', cause: expect.stringMatching(/^its log is full \(300 records\): each new punch writes over/) },
    ]);
    expect(notes[0]!.fix).toMatch(/set terminals\.gate-1\.clearAfterDays|clearAfterDays/);
  });

  it('says a full log no more once punchgate cleared it', async () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    const sim = await startTerminalSim({
      punches: [
        { userId: '1', logTime: '2025-01-01 08:00:00' },
        { userId: '2', logTime: '2025-01-01 09:00:00' },
      ],
      logCapacity: 2,
    });
    const fx = journalFixture(() => now);
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 30 });
    const first = await pollTerminal(cfg, fx.deps);
    expect(first).toMatchObject({ ok: true, added: 2, cleared: false });
    const [note] = activeZkNotes(fx.journal.sourceState, 'gate-1', now);
    expect(note).toMatchObject({
      topic: 'full',
      fix: expect.stringMatching(/once every record on it is delivered and older than 30 days/),
    });
    fx.journal.settle(fx.journal.claim(2).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, cleared: true });
    expect(activeZkNotes(fx.journal.sourceState, 'gate-1', now)).toEqual([]);
  });
});
