import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readDevices } from '../../src/sources/biotime/devices.js';
import { transaction, SIM_TERMINALS } from '../../src/sim/biotime/index.js';
import { bioConfig, journalFixture, passwordEnv, startSim, ZONE } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const readTotal = (j: ReturnType<typeof journalFixture>) =>
  readDevices(j.journal.sourceState, 'hq').reduce((n, d) => n + d.read, 0);

describe('BioTime: the punches read per terminal behind the server', () => {
  it('counts each transaction once, also when a restart or a reload reads the id window again', async () => {
    const sim = await startSim(54);
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const poller = () => {
      const p = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv());
      cleanups.push(() => p.destroy());
      return p;
    };
    expect(await poller().poll()).toMatchObject({ ok: true, added: 54 });
    expect(readTotal(j)).toBe(54);
    // A restart (and a config reload) starts a new poller: its window of ids below the cursor is
    // read again, nothing of it journalled twice, and the figure must not grow by it (was 108, then 162).
    const again = await poller().poll();
    expect(again).toMatchObject({ ok: true, added: 0 });
    expect(again.duplicates).toBeGreaterThan(0);
    expect(readTotal(j)).toBe(54);
    expect((await poller().poll()).added).toBe(0);
    expect(readTotal(j)).toBe(54);
    // A new transaction counts, on its own terminal.
    sim.add([
      transaction(
        { emp: '9001', atMs: Date.now() - 60_000, terminal: SIM_TERMINALS[0], state: 0, verify: 1 },
        2000,
        ZONE,
      ),
    ]);
    expect(await poller().poll()).toMatchObject({ ok: true, added: 1 });
    expect(readTotal(j)).toBe(55);
    expect(j.journal.queries.list().length).toBe(55);
  });
});
