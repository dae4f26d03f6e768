import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const BOUNDS = { maxBytes: 50_000, maxAgeMs: 30 * 86_400_000 };
const body = (i: number) => `MYSTERY\tline ${i}\t${'x'.repeat(80)}`;

/**
 * Issue 35: the bound of kept uploads (lines a push terminal sent that punchgate cannot read) is
 * kept without reading every kept upload for each new one; what another process took away
 * (`terminals reparse`) is seen; the bound holds exactly as before.
 */
describe('the bound of kept uploads', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  let store: PushStore;
  const keep = (terminal: string, i: number) =>
    store.commitRecords(
      { terminal, serial: `SN-${terminal}`, table: 'mystery', stamp: null, at: clock.now() },
      {
        kept: [{ table: 'mystery', reason: 'not a table punchgate reads', lines: 1, body: body(i) }],
        keptBounds: BOUNDS,
      },
    );
  const heldBytes = () => (j.db.prepare(`SELECT coalesce(sum(bytes), 0) AS n FROM push_kept`).get() as { n: number }).n;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    store = new PushStore(j.db, j, clock);
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('reads the kept uploads whole once, then keeps the bound from what it added and dropped', () => {
    // The SQL each statement runs while `recording`: the store prepares a statement once and keeps
    // it, so what a later upload runs is seen at each run, not at its prepare.
    const ran: string[] = [];
    let recording = false;
    const prepare = j.db.prepare.bind(j.db);
    j.db.prepare = ((sql: string) => {
      const st = prepare(sql) as unknown as Record<'run' | 'get' | 'all', (...a: unknown[]) => unknown>;
      for (const m of ['run', 'get', 'all'] as const) {
        const f = st[m].bind(st);
        st[m] = (...a: unknown[]) => (recording && ran.push(sql), f(...a));
      }
      return st;
    }) as never;
    for (let i = 0; i < 900; i++) {
      keep(i % 3 === 0 ? 'gate-a' : 'gate-b', i);
      clock.advance(1000);
    }
    expect(heldBytes()).toBeLessThanOrEqual(BOUNDS.maxBytes);
    expect(heldBytes()).toBeGreaterThan(BOUNDS.maxBytes - 200);
    // The terminal that sent the most (two thirds) gave up its oldest: both hold a fair share.
    const per = j.db.prepare(`SELECT terminal, sum(bytes) AS n FROM push_kept GROUP BY terminal`).all() as {
      terminal: string;
      n: number;
    }[];
    for (const r of per) expect(r.n).toBeGreaterThan(BOUNDS.maxBytes * 0.4);

    // Every statement of a further upload kept: none reads the whole of push_kept.
    recording = true;
    try {
      keep('gate-b', 9999);
    } finally {
      recording = false;
      j.db.prepare = prepare as never;
    }
    const scans = ran.flatMap((sql) =>
      (j.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...placeholders(sql)) as { detail: string }[])
        .map((r) => r.detail)
        .filter((d) => /^SCAN push_kept\b/.test(d)),
    );
    expect(ran.some((sql) => /INSERT INTO push_kept /.test(sql))).toBe(true);
    expect(scans).toEqual([]);
    expect(heldBytes()).toBeLessThanOrEqual(BOUNDS.maxBytes);
  });

  it('sees what another process took away, and drops nothing it need not', () => {
    for (let i = 0; i < 700; i++) keep('gate-a', i);
    const full = heldBytes();
    expect(full).toBeLessThanOrEqual(BOUNDS.maxBytes);
    expect(full).toBeGreaterThan(BOUNDS.maxBytes - 200);
    // `terminals reparse` in another process let half of them go.
    const other = new Database(tmp.path('j.db'));
    try {
      other.exec(`DELETE FROM push_kept WHERE id % 2 = 0`);
    } finally {
      other.close();
    }
    const after = heldBytes();
    keep('gate-a', 5000);
    // Room again: the new one is kept and nothing else dropped.
    expect(heldBytes()).toBe(after + Buffer.byteLength(body(5000)));
  });
});

/** Any values for a statement's parameters (the plan does not depend on them here). */
function placeholders(sql: string): unknown[] {
  return Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 0);
}
