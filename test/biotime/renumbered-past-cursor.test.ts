import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readNotes } from '../../src/sources/biotime/notes.js';
import { CURSOR_KEY } from '../../src/sources/biotime/reader.js';
import { transaction, SIM_TERMINALS, type BiotimeSim } from '../../src/sim/biotime/index.js';
import {
  bioConfig,
  expectedKeys,
  journalFixture,
  journalKeys,
  listQueries,
  passwordEnv,
  startSim,
  ZONE,
} from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(count: number) {
  const sim = await startSim(count);
  const j = journalFixture();
  cleanups.push(() => sim.stop(), j.cleanup);
  const poller = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv());
  cleanups.push(() => poller.destroy());
  return { sim, j, poller };
}

/** `n` punches made while punchgate was away, one a second on the first simulated terminal. */
const punchesSince = (sim: BiotimeSim, n: number, prefix: string) =>
  sim.add(
    Array.from({ length: n }, (_, i) =>
      transaction(
        {
          emp: `${prefix}${i + 1}`,
          atMs: Date.now() - 30 * 60_000 + i * 1000,
          terminal: SIM_TERMINALS[0],
          state: 0,
          verify: 1,
        },
        2000,
        ZONE,
      ),
    ),
  );

describe('a BioTime table renumbered whose new ids pass the read position before the next poll', () => {
  it('reads every transaction of the new numbering (the cursor id asked for again carries another one)', async () => {
    const { sim, j, poller } = await setup(400);
    await poller.poll(); // cursor at id 400
    const before = [...sim.table.all()];
    // The database restored from an older backup (its first 150 transactions, numbered from 1),
    // then 350 punches uploaded while punchgate was stopped: ids 151..500 pass the 400 read.
    const kept = before.slice(0, 150);
    sim.table.clear();
    sim.table.add(kept);
    punchesSince(sim, 350, '77');
    expect(sim.table.all().at(-1)!.id).toBeGreaterThan(400);
    for (let i = 0; i < 5; i++) expect((await poller.poll()).ok).toBe(true);
    expect(journalKeys(j.journal)).toEqual(expectedKeys([...before, ...sim.table.all()]));
    expect(readNotes(j.journal.sourceState, 'hq').map((n) => n.topic)).toContain('table');
  });

  it('a table that was not renumbered is not read again; a cursor kept by an older punchgate takes the time of its transaction', async () => {
    const { sim, j, poller } = await setup(300);
    await poller.poll();
    const stored = JSON.parse(j.journal.sourceState.get('hq', CURSOR_KEY)!) as { id: number; at?: string };
    expect(stored.id).toBe(300);
    expect(stored.at).toBeDefined();
    // As an older punchgate kept it: no `at`.
    j.journal.sourceState.set({ terminal: 'hq', key: CURSOR_KEY, value: JSON.stringify({ ...stored, at: undefined }) });
    punchesSince(sim, 3, '88');
    const asked = listQueries(sim).length;
    expect(await poller.poll()).toMatchObject({ ok: true, added: 3 });
    // The window below the cursor as before (the cursor's own id in it), no read from the start.
    expect(
      listQueries(sim)
        .slice(asked)
        .map((q) => q.get('id__gt')),
    ).toEqual(['201', '301']);
    const after = JSON.parse(j.journal.sourceState.get('hq', CURSOR_KEY)!) as { id: number; at?: string };
    expect(after).toMatchObject({ id: 303, at: expect.any(String) });
    expect(readNotes(j.journal.sourceState, 'hq').map((n) => n.topic)).not.toContain('table');
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
  });

  // The older path (the newest id below the read position) read again only from overlapMinutes
  // before the newest punch read: a restored table's transaction with an older punch time (a
  // terminal that was offline uploading since the restore) was never read.
  it('a table restored below the read position is read again from its first id: a late upload of an older punch is read', async () => {
    const { sim, j, poller } = await setup(400);
    await poller.poll(); // cursor at id 400
    const before = [...sim.table.all()];
    sim.table.clear();
    sim.table.add(before.slice(0, 200)); // restored from a backup: ids 1..200
    // Uploaded since by a terminal that was offline for 10 days: id 201.
    sim.add([
      transaction(
        { emp: '991', atMs: Date.now() - 10 * 86_400_000, terminal: SIM_TERMINALS[0], state: 0, verify: 1 },
        2000,
        ZONE,
      ),
    ]);
    // Then 150 punches of today (ids 202..351, still below the 400 read): the window below the
    // cursor (a page less one) no longer reaches id 201 once they are read.
    punchesSince(sim, 150, '66');
    for (let i = 0; i < 4; i++) expect((await poller.poll()).ok).toBe(true);
    expect(journalKeys(j.journal).filter((k) => k.startsWith('991@'))).toHaveLength(1);
    expect(journalKeys(j.journal)).toEqual(expectedKeys([...before, ...sim.table.all()]));
    expect(readNotes(j.journal.sourceState, 'hq').map((n) => n.topic)).toContain('table');
  });
});
