import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readNotes } from '../../src/sources/biotime/notes.js';
import type { BioServerVariant } from '../../src/sim/biotime/index.js';
import { bioConfig, expectedKeys, journalFixture, journalKeys, listQueries, passwordEnv, startSim } from './helpers.js';

/**
 * Id mode against servers that do not answer as the manual says (found by an adversarial trial):
 * one that ignores `ordering=`, and one whose ids become visible out of order.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(count: number, variant: Partial<BioServerVariant> = {}, extra = {}) {
  const sim = await startSim(count, { variant });
  const j = journalFixture();
  cleanups.push(() => sim.stop(), j.cleanup);
  const poller = new BiotimePoller(bioConfig(sim, extra), j.deps, undefined, passwordEnv());
  cleanups.push(() => poller.destroy());
  return { sim, j, poller };
}

const notes = (j: ReturnType<typeof journalFixture>) => readNotes(j.journal.sourceState, 'hq');

describe('BioTime id mode and servers that order or number differently', () => {
  it('a server that ignores ordering=-id is not taken for a renumbered one; a real renumbering on it still is', async () => {
    const { sim, j, poller } = await setup(50, { descending: false });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 50, mode: 'id' });
    for (let i = 0; i < 3; i++) expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    expect(notes(j).map((n) => n.topic)).not.toContain('table');
    // Nothing read again by time window: every query after the first poll was by id alone.
    expect(listQueries(sim).every((q) => q.get('start_time') === null)).toBe(true);
    // Restored with the older half, numbered from 1 again: noticed, without naming a wrong newest id.
    const rows = sim.table.all().slice(0, 20);
    sim.table.clear();
    sim.table.add(rows);
    await poller.poll();
    const table = notes(j).find((n) => n.topic === 'table');
    expect(table?.cause).toMatch(/newest transaction is below the 50 punchgate had read up to/);
    expect(journalKeys(j.journal)).toHaveLength(50);
  });

  it('an id that shows after higher ones were read (uploads committed out of order) is read by the next poll, once', async () => {
    const { sim, j, poller } = await setup(20, { hiddenIds: [15] }, { pageSize: 10 });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 19 });
    sim.setVariant({ hiddenIds: [] });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1, duplicates: 0 });
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
    // Bounded: the window (a page less one) is the poll's only request when nothing is new.
    const before = listQueries(sim).length;
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0, duplicates: 0 });
    const q = listQueries(sim).slice(before);
    expect(q.map((x) => x.get('id__gt'))).toEqual(['11']);
    expect(notes(j).map((n) => n.topic)).toEqual([]);
  });
});
