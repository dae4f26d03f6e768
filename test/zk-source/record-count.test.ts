import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * The record count GET_FREE_SIZES announces names the log's record size, but a terminal may
 * announce records it does not hand over (firmware that lies), or fewer than it hands over (a
 * punch recorded during the download). Found by an adversarial trial: two 40-byte records
 * announced as five were read as five 16-byte records of garbage, journalled and delivered, the
 * real two never; the next poll then cleared the terminal's log.
 */
describe('ZK polling: a record count that does not fit the log', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('more records announced than handed over: the real ones journalled, the poll failed, the log never cleared', async () => {
    const sim = await startTerminalSim({
      punches: [
        { userId: '4001', logTime: '2025-11-20 08:00:00' },
        { userId: '4002', logTime: '2025-11-20 08:05:00' },
      ],
      faults: { recordCountOffset: 3 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { clearAfterDays: 1 });

    const first = await pollTerminal(cfg, fx.deps);
    expect(first.ok).toBe(false);
    expect(first.error).toMatch(/downloaded 2 of 5 records/);
    expect(journalKeys(fx.journal)).toEqual(['4001@2025-11-20 08:00:00', '4002@2025-11-20 08:05:00']);

    // Both delivered and old enough to clear: the count still does not fit, so the log stays.
    fx.journal.settle(fx.journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const second = await pollTerminal(cfg, fx.deps);
    expect(second.ok).toBe(false);
    expect(second.cleared).toBe(false);
    expect(sim.clearCount()).toBe(0);
    expect(sim.punches()).toHaveLength(2);
    expect(fx.journal.counts()).toMatchObject({ delivered: 2, pending: 0 });
  });

  it('an 8-byte log that grew during the download is read at 8 bytes, each punch once', async () => {
    const sim = await startTerminalSim({
      users: [
        { uid: 1, userId: '501', name: 'A' },
        { uid: 2, userId: '502', name: 'B' },
      ],
      punches: [
        { userId: '501', logTime: '2026-11-20 08:00:00' },
        { userId: '502', logTime: '2026-11-20 08:01:00' },
      ],
      firmwareQuirks: { attendanceRecord: 8 },
      // One punch announced, two handed over: 16 bytes, one 16-byte record by the count.
      faults: { recordCountOffset: -1 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);

    const r = await pollTerminal(zkConfig(sim.port), fx.deps);
    expect(r.ok, r.error).toBe(true);
    expect(journalKeys(fx.journal)).toEqual(['501@2026-11-20 08:00:00', '502@2026-11-20 08:01:00']);
    expect(fx.journal.counts().quarantined).toBe(0);
  });
});
