import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { SIM_TERMINALS, TransactionTable, transaction } from '../../src/sim/biotime/index.js';
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

/**
 * A server read by time window (it ignores `ordering=id&id__gt`, as BioTime builds whose API
 * documents only page, page_size, start_time, end_time, terminal_sn and emp_code may) that lists
 * its transactions newest first. A read of that window that stops before its last page (the
 * poll's page bound or deadline, a page that fails) has already moved the newest punch read to
 * the top of the table: the older pages not read yet must still be read by the next polls, not
 * left below the next window.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `count` transactions, one every 20 minutes up to an hour ago: days of history, past any overlap. */
function history(count: number): TransactionTable {
  const first = Date.now() - 3_600_000 - count * 20 * 60_000;
  return new TransactionTable(
    Array.from({ length: count }, (_, i) =>
      transaction(
        {
          emp: String(1000 + (i % 40)),
          atMs: first + i * 20 * 60_000,
          terminal: SIM_TERMINALS[i % 2]!,
          state: 0,
          verify: 1,
        },
        2000,
        ZONE,
      ),
    ),
  );
}

async function setup(count: number, maxPages: number) {
  const sim = await startSim(0, { table: history(count), variant: { idOrder: false } });
  const j = journalFixture();
  cleanups.push(() => sim.stop(), j.cleanup);
  const poller = new BiotimePoller(bioConfig(sim, { pageSize: 50 }), j.deps, undefined, passwordEnv(), { maxPages });
  cleanups.push(() => poller.destroy());
  return { sim, j, poller };
}

describe('BioTime read by time window, newest first', () => {
  it('a read stopped at the page bound goes on with the older pages at the next polls (none lost, none twice)', async () => {
    // 500 transactions over ~7 days, pages of 50, at most 3 pages a poll: the first poll (id mode
    // finds the order ignored, then reads by time) cannot read the window in one go.
    const { sim, j, poller } = await setup(500, 3);
    for (let n = 0; n < 12; n++) await poller.poll();
    const keys = journalKeys(j.journal);
    expect(keys.length).toBe(500);
    expect(new Set(keys).size).toBe(500);
    expect(keys).toEqual(expectedKeys(sim.table.all()));
    expect(listQueries(sim).length).toBeGreaterThan(0);
  });

  it('a window resumed past the end of a table that shrank (DRF 404 "Invalid page.") is done, not "no transactions path"', async () => {
    const { sim, j, poller } = await setup(500, 3);
    const first = await poller.poll();
    expect(first).toMatchObject({ mode: 'time', stopped: expect.any(String) });
    const before = journalKeys(j.journal).length;
    // The server's clean-up deletes all but the newest 40: the page the window goes on from is past the end.
    const all = sim.table.all();
    sim.table.remove(all.slice(0, all.length - 40).map((r) => r.id));
    const r = await poller.poll();
    expect(r.error).toBeUndefined();
    expect(r.ok).toBe(true);
    expect(sim.requests().some((x) => x.status === 404)).toBe(true);
    // The window is done: the next poll reads the usual window from the newest punch read.
    await poller.poll();
    const q = listQueries(sim).at(-1)!;
    expect(q.get('page')).toBe('1');
    expect(journalKeys(j.journal).length).toBe(before);
  });

  it('transactions deleted between two pages (the count falls) move older ones onto a page read already: those are read too', async () => {
    const { sim, j, poller } = await setup(500, 100);
    // After page 2 of the time window, the 30 newest transactions are deleted on the server: the
    // 30 rows that opened page 3 move up onto page 2, read already.
    sim.setVariant({ churn: { afterPage: 2, remove: 30 } });
    const expected = expectedKeys(sim.table.all().slice(0, -30));
    const r = await poller.poll();
    expect(r.ok).toBe(true);
    const keys = journalKeys(j.journal);
    // Every transaction still on the server is journalled (and the 30 deleted ones, read before).
    expect(keys.filter((k) => expected.includes(k))).toEqual(expected);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('the same on a server that caps page_size below the pages asked for (pages go back by its own size)', async () => {
    const { sim, j, poller } = await setup(500, 100);
    // Pages of 50 asked, 20 given: 30 deleted after page 4 move rows back over two of its pages.
    sim.setVariant({ maxPageSize: 20, churn: { afterPage: 4, remove: 30 } });
    const expected = expectedKeys(sim.table.all().slice(0, -30));
    expect((await poller.poll()).ok).toBe(true);
    const keys = journalKeys(j.journal);
    expect(keys.filter((k) => expected.includes(k))).toEqual(expected);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a window left part-read is read from its start when pageSize was changed since (its page numbers meant other rows)', async () => {
    const sim = await startSim(0, { table: history(500), variant: { idOrder: false } });
    const j = journalFixture();
    cleanups.push(() => sim.stop(), j.cleanup);
    const small = new BiotimePoller(bioConfig(sim, { pageSize: 20 }), j.deps, undefined, passwordEnv(), {
      maxPages: 6,
    });
    cleanups.push(() => small.destroy());
    expect((await small.poll()).stopped).toBeDefined(); // 100 read, the window goes on at page 6 of 20
    const large = new BiotimePoller(bioConfig(sim, { pageSize: 200 }), j.deps, undefined, passwordEnv(), {
      maxPages: 3,
    });
    cleanups.push(() => large.destroy());
    for (let n = 0; n < 4; n++) await large.poll();
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
  });
});
