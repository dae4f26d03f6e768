import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { OWED_DEFAULT_SQL, OWED_SINK_SQL, ShiftProgressQueries } from '../../src/journal/shift-progress.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const punch = (code: string, logTime: string, terminal = 'gate'): Punch => ({ terminal, biometricCode: code, logTime });
const at = (min: number) => `2026-11-22 08:${String(min).padStart(2, '0')}:00`;

/** The Frappe shift sync's journal query (shift-progress.ts), on a real SQLite file. */
describe('journal: shift sync progress', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({
      path: tmp.path('journal.db'),
      site: 'plant-a',
      clock,
      mode: 'owner',
      retentionDays: 10,
      deadAfterAttempts: 2,
    });
    j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  const terminals = [
    { name: 'gate', timezone: 'Europe/Berlin' },
    { name: 'yard', timezone: 'UTC' },
  ];

  it('a terminal renamed (its device kept) is held by the punches still owed under its old name', () => {
    // Found by an adversarial trial: gate-1 renamed gate-a by a reload, a refused punch journalled
    // as gate-1 no longer held the shift sync of gate-a, which moved past it.
    const withDevice = (code: string, logTime: string, terminal: string): Punch => ({
      ...punch(code, logTime, terminal),
      device: 'CQZ7232160001',
    });
    j.ingest([withDevice('1', at(1), 'gate-1')]);
    const [owed] = j.claim(1);
    j.settle([{ id: owed!.id, kind: 'rejected', message: 'No Employee found' }]);
    // Renamed: the new name has reported the device (a poll) but journalled nothing yet.
    j.terminals.update('gate-a', { serial: 'CQZ7232160001', online: true, lastPollAt: 5 });
    const renamed = [{ name: 'gate-a', timezone: 'Europe/Berlin' }];
    expect(j.shiftSyncProgress(undefined, renamed).get('gate-a')).toMatchObject({
      oldestUndelivered: at(1),
      oldestRefused: true,
    });
    // Once it journals under the new name, still held by the old one's refused punch.
    j.ingest([withDevice('2', at(5), 'gate-a')]);
    expect(j.shiftSyncProgress(undefined, renamed).get('gate-a')?.oldestUndelivered).toBe(at(1));
    // Another device's old name does not hold it.
    j.ingest([{ ...punch('3', at(0), 'other-old'), device: 'OTHER' }]);
    expect(j.shiftSyncProgress(undefined, renamed).get('gate-a')?.oldestUndelivered).toBe(at(1));
  });

  it('per sink: the oldest punch pending, in flight or refused; dead and quarantined ones do not hold it back', () => {
    j.ingest([punch('1', at(1)), punch('2', at(2)), punch('3', at(3)), punch('4', at(4), 'yard')]);
    // Not yet taken in by sink erp: owed all the same.
    expect(j.shiftSyncProgress('erp', terminals).get('gate')).toEqual({ oldestUndelivered: at(1) });
    expect(j.shiftSyncProgress(undefined, terminals).get('yard')).toEqual({ oldestUndelivered: at(4) });

    const erp = j.sinkQueue('erp');
    const got = erp.claim(10);
    // In flight: still owed.
    expect(j.shiftSyncProgress('erp', terminals).get('gate')?.oldestUndelivered).toBe(at(1));
    const first = got.find((p) => p.logTime === at(1))!;
    const second = got.find((p) => p.logTime === at(2))!;
    erp.settle([
      { id: first.id, kind: 'rejected', message: 'No Employee found' },
      { id: second.id, kind: 'delivered' },
    ]);
    erp.release(got.filter((p) => p !== first && p !== second).map((p) => p.id));
    // Refused, waiting for its retry: still owed, and said to be the refused one.
    expect(j.shiftSyncProgress('erp', terminals).get('gate')).toEqual({
      oldestUndelivered: at(1),
      oldestRefused: true,
    });
    // Refused twice: dead, no longer holding the shift back; the next owed one does.
    clock.advance(86_400_000);
    const again = erp.claim(10, { ignoreBackoff: true });
    erp.settle(again.filter((p) => p.id === first.id).map((p) => ({ id: p.id, kind: 'rejected', message: 'x' })));
    erp.release(again.filter((p) => p.id !== first.id).map((p) => p.id));
    expect(erp.counts().dead).toBe(1);
    expect(j.shiftSyncProgress('erp', terminals).get('gate')).toEqual({ oldestUndelivered: at(3) });
    // The default sink's own state is the punches table's: all three of gate owed.
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')?.oldestUndelivered).toBe(at(1));
    const def = j.claim(10);
    const refused = def.find((p) => p.logTime === at(1))!;
    j.settle([{ id: refused.id, kind: 'rejected', message: 'No Employee found' }]);
    j.release(def.filter((p) => p !== refused).map((p) => p.id));
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')).toEqual({
      oldestUndelivered: at(1),
      oldestRefused: true,
    });
    clock.advance(86_400_000);
    const all = j.claim(10, { ignoreBackoff: true });
    j.settle(all.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')).toEqual({});
    // A quarantined punch (in the future by the box clock) is owed to nobody until released.
    j.ingest([punch('5', '2026-12-30 08:00:00')]);
    expect(j.counts().quarantined).toBe(1);
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')).toEqual({});
    expect(j.shiftSyncProgress('erp', terminals).get('gate')?.oldestUndelivered).toBe(at(3));
  });

  it('read up to: the terminal clock of a complete download, else the last contact in the terminal zone', () => {
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')).toEqual({});
    // A poll that worked (no download clock recorded): the start of that poll, in the zone.
    const start = Date.UTC(2026, 10, 22, 9, 0, 0);
    j.terminals.update('gate', { lastPollAt: start, lastSuccessAt: start + 5000 });
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')?.readUpTo).toBe('2026-11-22 10:00:00');
    // A failed poll since: the end of the one that worked.
    j.terminals.update('gate', { lastPollAt: start + 60_000 });
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')?.readUpTo).toBe('2026-11-22 10:00:05');
    // A complete download's terminal clock wins.
    j.terminals.update('gate', { readUpTo: '2026-11-22 09:59:30' });
    expect(j.shiftSyncProgress(undefined, terminals).get('gate')?.readUpTo).toBe('2026-11-22 09:59:30');
  });

  it('reads the partial indexes of what is owed, in log-time order, never the delivered history', () => {
    const plan = (sql: string, ...args: unknown[]) =>
      (j.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('\n');
    const def = plan(OWED_DEFAULT_SQL);
    expect(def).toMatch(/USING (COVERING )?INDEX punches_owed_by_time/);
    const sink = plan(OWED_SINK_SQL, 'erp');
    expect(sink).toMatch(/USING INDEX sink_owed_by_time/);
    // Read in the index's order: no sort of everything owed before the first row.
    for (const p of [def, sink]) expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('one walk of what is owed serves every terminal; past its bound a terminal not met gets the time reached, never a later one', () => {
    // gate owes five punches (08:01-08:05), yard one at 08:10, dock none.
    j.ingest([1, 2, 3, 4, 5].map((m) => punch(String(m), at(m))));
    j.ingest([punch('9', at(10), 'yard')]);
    const all = [...terminals, { name: 'dock' }];
    const owed = (q: ShiftProgressQueries, sink?: string) =>
      Object.fromEntries([...q.progress(sink, all)].map(([name, p]) => [name, p.oldestUndelivered]));

    // Below the bound: exact, and a terminal that owes nothing has no figure.
    expect(owed(new ShiftProgressQueries(j.db))).toEqual({ gate: at(1), yard: at(10), dock: undefined });
    expect(owed(new ShiftProgressQueries(j.db), 'erp')).toEqual({ gate: at(1), yard: at(10), dock: undefined });

    // A bound of three punches read: yard and dock were not met by then; both get 08:03, which is
    // before anything either owes (the shift sync waits longer, it never runs ahead).
    expect(owed(new ShiftProgressQueries(j.db, 3))).toEqual({ gate: at(1), yard: at(3), dock: at(3) });
    j.sinkQueue('erp').claim(100); // taken in by erp: its walk reads its own rows
    expect(owed(new ShiftProgressQueries(j.db, 3), 'erp')).toEqual({ gate: at(1), yard: at(3), dock: at(3) });

    // Delivered to the default sink: nothing owed there, whatever the bound.
    j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(owed(new ShiftProgressQueries(j.db, 3))).toEqual({ gate: undefined, yard: undefined, dock: undefined });
  });

  it('quarantined punches a sink has rows for count toward the bound but hold nothing back', () => {
    // Quarantined (before 2000: a terminal whose clock was reset): they sort first by log time.
    j.ingest([1, 2, 3].map((m) => punch(`q${m}`, `1999-01-01 08:0${m}:00`)));
    j.ingest([punch('1', at(1), 'yard')]);
    expect(j.counts().quarantined).toBe(3);
    j.sinkQueue('erp').claim(100);
    const q = (limit?: number) =>
      Object.fromEntries(
        [...new ShiftProgressQueries(j.db, limit).progress('erp', terminals)].map(([n, p]) => [n, p.oldestUndelivered]),
      );
    expect(q()).toEqual({ gate: undefined, yard: at(1) });
    // Three rows read, all quarantined: both terminals get the time reached, before yard's punch.
    expect(q(3)).toEqual({ gate: '1999-01-01 08:03:00', yard: '1999-01-01 08:03:00' });
  });
});
