import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { SIM_TERMINALS, transaction } from '../../src/sim/biotime/index.js';
import { bioConfig, journalFixture, passwordEnv, startSim, ZONE } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * `punch_time` with and without seconds (`2026-11-02 08:15:30`, `2026-11-02 08:16`), a minimal
 * reconstruction of the variant the capture trial names (rows as in the reference notes'
 * sinks-and-sources-2.md, BioTime). A time without seconds was kept raw and refused as not a time:
 * the punch never reached the HRMS. It is that minute at :00.
 */
describe('BioTime punch_time forms', () => {
  it('journals punch_time with and without seconds', async () => {
    const sim = await startSim(0);
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const at = Date.now() - 60_000;
    const row = (emp: string, punchTime: string, id: number) => ({
      ...transaction({ emp, atMs: at, terminal: SIM_TERMINALS[0], state: 0, verify: 1 }, id, ZONE),
      punch_time: punchTime,
    });
    sim.add([
      row('7001', '2026-11-02 08:15:30', 1),
      row('7002', '2026-11-02 08:16', 2),
      row('7003', '2026-11-02T08:17', 3),
    ]);
    const poller = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv());
    cleanups.push(() => poller.destroy());
    expect(await poller.poll()).toMatchObject({ ok: true, added: 3 });
    expect(
      j.journal.queries
        .list()
        .map((p) => `${p.biometricCode}@${p.logTime}`)
        .sort(),
    ).toEqual(['7001@2026-11-02 08:15:30', '7002@2026-11-02 08:16:00', '7003@2026-11-02 08:17:00']);
  });
});
