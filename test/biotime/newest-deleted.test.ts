import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readNotes } from '../../src/sources/biotime/notes.js';
import { transaction, SIM_TERMINALS, type BiotimeSim } from '../../src/sim/biotime/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { createLogger } from '../../src/util/logger.js';
import { bioConfig, journalFixture, journalKeys, passwordEnv, startSim, ZONE } from './helpers.js';

/**
 * BioTime lets an admin delete transactions (Attendance > Transaction: a test punch, a wrong one).
 * The newest deleted after punchgate read it, the transaction at the read position is gone and the
 * server's newest id is below it: that was taken for a renumbered (restored or replaced) table,
 * an alert saying so on the status, and the whole table read again from its first transaction (a
 * year of transactions on a real server, to find nothing new). The server's newest transaction
 * is one punchgate read under that very id, saying the same: the ones after it were deleted, the
 * rest is as it was.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const fresh = (sim: BiotimeSim, emp: string, atMs = Date.now() - 60_000) =>
  sim.add([transaction({ emp, atMs, terminal: SIM_TERMINALS[0], state: 0, verify: 1 }, 2000, ZONE)]);

describe('BioTime transactions an admin deleted after punchgate read them', () => {
  it('the newest deleted (also across a restart of punchgate): no renumbered alert, nothing read again, the next ones read', async () => {
    const sim = await startSim(400, {});
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const lines: string[] = [];
    const deps = sourceDepsFor(j.journal, createLogger({ destination: { write: (s: string) => void lines.push(s) } }), {
      now: () => Date.now(),
    });
    const poller = () => {
      const p = new BiotimePoller(bioConfig(sim), deps, undefined, passwordEnv());
      cleanups.push(() => p.destroy());
      return p;
    };
    const topics = () => readNotes(j.journal.sourceState, 'hq').map((n) => n.topic);
    const ids = () => sim.table.all().map((t) => t.id);

    const first = poller();
    expect(await first.poll()).toMatchObject({ ok: true, added: 400 });
    sim.table.remove(ids().slice(-1)); // the newest, 400
    expect(await first.poll()).toMatchObject({ ok: true, added: 0 });
    expect(topics()).not.toContain('table');
    expect(lines.filter((l) => l.includes('no longer has its transactions after id 399'))).toHaveLength(1);
    // Nothing read again: the next poll reads the window below the read position only (its lowest
    // id, outside the window the poll before remembered, journalled once more at most).
    const next = await first.poll();
    expect(next).toMatchObject({ ok: true, added: 0 });
    expect(next.duplicates).toBeLessThanOrEqual(1);
    fresh(sim, '9001');
    expect(await first.poll()).toMatchObject({ ok: true, added: 1 });

    // punchgate restarted (its memory of the window gone), then the three newest deleted.
    const second = poller();
    sim.table.remove(ids().slice(-3));
    const r = await second.poll();
    expect(r).toMatchObject({ ok: true, added: 0 });
    expect(r.rows).toBeLessThan(150);
    expect(topics()).not.toContain('table');
    fresh(sim, '9002');
    expect(await second.poll()).toMatchObject({ ok: true, added: 1 });
    // Every transaction read once; the deleted ones stay journalled (they were read, and sent).
    expect(journalKeys(j.journal)).toHaveLength(402);
    expect(topics()).not.toContain('table');
  });
});
