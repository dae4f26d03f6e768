import { afterEach, describe, expect, it } from 'vitest';
import { generateRecords, startDahuaSim } from '../../src/sim/dahua/index.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, expectedPunches, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Dahua record answers cut in the middle of a record', () => {
  it('journal no punch under half a user id: the cut record is read whole from the next page', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const records = generateRecords(60, now - 600).map((r, i) => ({ ...r, UserID: `1000${100 + i}` }));
    const sim = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: OFFSET_MIN, records, pageCap: 20 });
    cleanups.push(() => sim.stop());
    sim.faults({ search: 'cut' });
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile }), f.deps);
    cleanups.push(() => poller.destroy());
    await poller.poll();
    const onDevice = new Set(expectedPunches(sim.records()));
    // Every punch journalled is one the device holds: none under a user id cut in half.
    expect(journalKeys(f.journal).filter((k) => !onDevice.has(k))).toEqual([]);
    // Pages cut in their middle still move on: only a last page too small to show a record whole waits.
    const journalled = new Set(journalKeys(f.journal));
    expect([...onDevice].filter((k) => !journalled.has(k)).length).toBeLessThanOrEqual(1);
    sim.faults({ search: null });
    await poller.poll();
    expect(journalKeys(f.journal)).toEqual(expectedPunches(sim.records()));
  });
});
