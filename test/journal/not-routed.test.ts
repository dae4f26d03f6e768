import { SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { NOT_ROUTED_MESSAGE, WAITING_CARDS_TERM } from '../../src/journal/not-routed.js';
import { recountPunches } from '../../src/journal/punch-counts.js';
import type { Punch } from '../../src/punch.js';
import { backBeforeNotRoutedState } from '../helpers/older-journal.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const DAY = 86_400_000;
const punches = (n: number, terminal: string, hour = 8): Punch[] =>
  Array.from({ length: n }, (_, i) => ({
    terminal,
    biometricCode: String(100 + i),
    logTime: `2026-11-22 ${String(hour).padStart(2, '0')}:${String(i).padStart(2, '0')}:00`,
  }));

/**
 * The punches of a terminal whose `sinks:` leaves the default sink out (several-HRMS trial: "delivered
 * 115" for an HRMS that received 85): never counted as delivered to it (not-routed.ts).
 */
describe('journal: punches never meant for the default sink', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  const open = () =>
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner', retentionDays: 10 });

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = open();
    j.useSinks({ defaultSink: 'hrms', others: ['erp'], defaultNotFor: ['warehouse'] });
  });
  afterEach(() => {
    try {
      j.close();
    } catch {
      // closed by the test
    }
    tmp.cleanup();
  });

  /** The default sink takes gate-1's punches; the warehouse's are settled for it unsent. */
  const deliverDefault = () => {
    const got = j.claim(100);
    expect(got.every((p) => p.terminal === 'gate-1')).toBe(true);
    j.settle(got.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    return got.length;
  };

  it('counts them apart from the delivered ones, in the counts, the hourly figures and the lists', () => {
    j.ingest([...punches(5, 'gate-1'), ...punches(3, 'warehouse', 9)]);
    expect(deliverDefault()).toBe(5);
    expect(j.counts()).toMatchObject({ pending: 0, inflight: 0, delivered: 5, notRouted: 3 });
    expect(j.queries.list({ terminal: 'warehouse' }).map((p) => [p.state, p.lastMessage])).toEqual(
      Array.from({ length: 3 }, () => ['not_routed', NOT_ROUTED_MESSAGE]),
    );
    expect(j.queries.list({ state: 'delivered' })).toHaveLength(5);
    expect(j.queries.list({ state: 'not_routed' })).toHaveLength(3);
    expect(j.history.list({ state: 'undelivered' })).toHaveLength(0);
    expect(j.history.count({ state: 'undelivered' })).toBe(0);
    expect(j.history.count({ state: 'not_routed' })).toBe(3);
    expect(j.hourly.series(clock.now()).delivered.reduce((a, b) => a + b, 0)).toBe(5);
    expect(j.queries.terminalTotals().rows).toEqual(
      expect.arrayContaining([
        { terminal: 'gate-1', journaled: 5, delivered: 5 },
        { terminal: 'warehouse', journaled: 3, delivered: 0 },
      ]),
    );
    // Nothing of the warehouse waits (a terminal taken out of the config is said only while some do).
    expect(j.punchCounts.waitingByTerminal()).toEqual([]);
    // The kept counts are the table's.
    const kept = j.counts();
    recountPunches(j.db);
    expect(j.counts()).toEqual(kept);
    // The other sink got them all.
    expect(j.sinkQueue('erp').claim(100)).toHaveLength(8);
  });

  it('an unknown badge card of a terminal routed away is not said to wait for the first sink', () => {
    j.ingest([
      { terminal: 'gate-1', biometricCode: 'card:111', logTime: '2026-11-22 08:00:00' },
      { terminal: 'warehouse', biometricCode: 'card:222', logTime: '2026-11-22 08:01:00' },
    ]);
    expect(j.queries.unknownCards().map((c) => c.terminal)).toEqual(['gate-1', 'warehouse']);
    j.claim(100); // gate-1's goes in flight, the warehouse's is settled unsent
    expect(j.queries.unknownCards()).toEqual([{ terminal: 'gate-1', count: 1, codes: ['card:111'] }]);
    expect(j.queries.remapUnknownCards('warehouse', () => '222')).toEqual({ remapped: 0, kept: 0 });
  });

  it("leaves them out of the waiting cards' index, so the status's read of it does not grow with the days kept", () => {
    j.ingest([
      { terminal: 'gate-1', biometricCode: 'card:111', logTime: '2026-11-22 08:00:00' },
      ...Array.from({ length: 50 }, (_, i) => ({
        terminal: 'warehouse',
        biometricCode: `card:${200 + i}`,
        logTime: `2026-11-22 09:${String(i).padStart(2, '0')}:00`,
      })),
    ]);
    j.claim(100); // the warehouse's 50 are settled unsent: not_routed
    // The index's own WHERE leaves them out (a partial index holds only the rows its WHERE takes).
    const indexSql = () =>
      j.db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'punches_unknown_cards'`).pluck().get() as string;
    expect(indexSql()).toContain(WAITING_CARDS_TERM);
    const plan = j.db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT terminal, count(*) FROM punches WHERE ${WAITING_CARDS_TERM} GROUP BY terminal`,
      )
      .all() as { detail: string }[];
    expect(plan.map((r) => r.detail).join('\n')).toMatch(/USING (COVERING )?INDEX punches_unknown_cards/);
    // A journal migrated from 23 has the same index.
    j.db.exec(`UPDATE punches SET state = 'delivered' WHERE state = 'not_routed'`);
    recountPunches(j.db);
    backBeforeNotRoutedState(j.db);
    j.close();
    j = open();
    expect(indexSql()).toContain(WAITING_CARDS_TERM);
    expect(j.queries.unknownCards()).toEqual([{ terminal: 'gate-1', count: 1, codes: ['card:111'] }]);
  });

  it('deletes them at the retention like delivered ones, once the other sink has them', () => {
    j.ingest([...punches(2, 'gate-1'), ...punches(3, 'warehouse', 9)]);
    deliverDefault();
    const erp = j.sinkQueue('erp');
    erp.settle(erp.claim(5).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    clock.advance(11 * DAY);
    // The newest row always stays; and the terminals' clocks too say the retention is past.
    j.ingest([{ terminal: 'gate-1', biometricCode: '110', logTime: '2026-12-03 10:00:00' }]);
    expect(j.prune()).toBe(5);
    expect(j.counts()).toMatchObject({ delivered: 0, notRouted: 0, pending: 1 });
  });

  it('migration 24 moves the punches a journal 23 settled as delivered for the default sink, with their counts', () => {
    j.ingest([...punches(4, 'gate-1'), ...punches(3, 'warehouse', 9)]);
    deliverDefault();
    // As version 23 left them: delivered, with the message, counted as delivered.
    j.db.exec(`UPDATE punches SET state = 'delivered' WHERE state = 'not_routed'`);
    recountPunches(j.db);
    backBeforeNotRoutedState(j.db);
    expect(j.counts()).toMatchObject({ delivered: 7, notRouted: 0 });
    expect(() => j.db.exec(`UPDATE punches SET state = 'not_routed' WHERE id = 1`)).toThrow(/CHECK/);
    j.close();

    j = open();
    expect(j.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(j.counts()).toMatchObject({ delivered: 4, notRouted: 3 });
    expect(j.queries.list({ terminal: 'warehouse' }).map((p) => p.state)).toEqual([
      'not_routed',
      'not_routed',
      'not_routed',
    ]);
    const kept = j.counts();
    recountPunches(j.db);
    expect(j.counts()).toEqual(kept);
    // A state the CHECK still refuses.
    expect(() => j.db.exec(`UPDATE punches SET state = 'gone' WHERE id = 1`)).toThrow(/CHECK/);
    j.close();
    const raw = new Database(tmp.path('journal.db'), { readonly: true });
    expect(raw.prepare(`PRAGMA integrity_check`).pluck().get()).toBe('ok');
    raw.close();
  });
});
