import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { activeZkNotes } from '../../src/sources/zk/notes.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { CMD } from '../../src/sources/zk/protocol/index.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * A terminal that never answers DISABLEDEVICE (the disable a clear needs) but takes it, as the
 * simulator's dropped reply does: before, the mark that makes the next poll enable it was removed
 * and the poll failed with "no answer, check the cable". The terminal stayed disabled, refusing
 * every punch at the door until someone restarted it, and every later poll failed the same way
 * although its whole log was read each time. Now its punches are read, only the clear is skipped,
 * the terminal is enabled again on a new session, and the status says why its log is not cleared.
 */
describe('ZK: a terminal that leaves DISABLEDEVICE unanswered', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is read, enabled again and not cleared; the status says why, and the disable is not tried again for a day', async () => {
    const sim = await startTerminalSim({
      punches: [
        { userId: '1', logTime: '2025-01-01 08:00:00' },
        { userId: '2', logTime: '2025-01-01 09:00:00' },
      ],
    });
    let now = Date.now();
    const fx = journalFixture(() => now);
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 30, timeoutMs: 600 });
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, added: 2, cleared: false });
    fx.journal.settle(fx.journal.claim(2).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    sim.setFaults({ dropReplyTo: [CMD.DISABLEDEVICE] });

    const r = await pollTerminal(cfg, fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, records: 2, duplicates: 2, cleared: false });
    expect(sim.disableCount()).toBe(1);
    expect(journalKeys(fx.journal)).toEqual(['1@2025-01-01 08:00:00', '2@2025-01-01 09:00:00']);
    expect(sim.punches()).toHaveLength(2);
    expect(sim.deviceEnabled()).toBe(true);
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled') ?? '').toBe('');
    expect(fx.deps.ledger.get(cfg.name)).toMatchObject({ online: true, lastError: null });
    const notes = activeZkNotes(fx.deps.state, cfg.name, now);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.cause).toMatch(/does not answer the request to pause punching \(DISABLEDEVICE\)/);
    expect(notes[0]!.fix).toMatch(/^nothing is lost; .*remove terminals\[gate-1\]\.clearAfterDays/);

    // Within the day: read, not disabled again (each try left it refusing punches while it waited).
    now += 3_600_000;
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, records: 2, cleared: false });
    expect(sim.disableCount()).toBe(1);

    // A day on, the firmware answers again: cleared, and the note is gone.
    sim.setFaults({ dropReplyTo: [] });
    now += 25 * 3_600_000;
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, cleared: true });
    expect(activeZkNotes(fx.deps.state, cfg.name, now)).toEqual([]);
    expect(sim.deviceEnabled()).toBe(true);
  });

  it('a terminal left disabled whose enable goes unanswered is still read, its mark kept for the next poll', async () => {
    const sim = await startTerminalSim({ punches: [{ userId: '1', logTime: '2025-01-01 08:00:00' }] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { timeoutMs: 600 });
    fx.deps.state.set({ terminal: cfg.name, key: 'zk-left-disabled', value: '2026-12-02T08:00:00.000Z' });
    sim.setFaults({ dropReplyTo: [CMD.ENABLEDEVICE], dropReplyOnce: true });
    const r = await pollTerminal(cfg, fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, added: 1 });
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled')).toBe('2026-12-02T08:00:00.000Z');
    expect(await pollTerminal(cfg, fx.deps)).toMatchObject({ ok: true, duplicates: 1 });
    expect(fx.deps.state.get(cfg.name, 'zk-left-disabled') ?? '').toBe('');
  });
});
