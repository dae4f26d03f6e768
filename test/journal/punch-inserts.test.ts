import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Ingest writes runs of punches, many per INSERT statement (punch-inserts.ts): what it journals,
 * reports and counts is what one statement per punch gave, for runs longer than a statement,
 * punches met twice in one write, runs broken by a quarantined punch or another terminal, and a
 * terminal whose device is learnt in the middle of a write.
 */
describe('journal: punches written many per statement', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(), mode: 'owner' });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  const time = (i: number) =>
    `2026-11-22 ${String(8 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
  const punch = (i: number, o: Partial<Punch> = {}): Punch => ({
    terminal: 'gate',
    device: 'SN-1',
    biometricCode: String(1000 + (i % 97)),
    logTime: time(i),
    verifyType: 1,
    punchState: i % 2,
    ...o,
  });
  const rows = () =>
    j.db
      .prepare(
        `SELECT terminal, device, biometric_code AS code, log_time AS t, verify_type AS v, punch_state AS ps, state FROM punches ORDER BY id`,
      )
      .all() as { terminal: string; device: string; code: string; t: string; v: number; ps: number; state: string }[];
  const kept = () =>
    (
      j.db.prepare(`SELECT terminal, state, n FROM punch_counts WHERE n <> 0 ORDER BY terminal, state`).all() as {
        terminal: string;
        state: string;
        n: number;
      }[]
    ).map((r) => `${r.terminal}/${r.state}=${r.n}`);
  const counted = () =>
    (
      j.db
        .prepare(`SELECT terminal, state, count(*) AS n FROM punches GROUP BY terminal, state ORDER BY terminal, state`)
        .all() as { terminal: string; state: string; n: number }[]
    ).map((r) => `${r.terminal}/${r.state}=${r.n}`);

  it('a write of 1,234 punches with repeats, a quarantined one and another terminal in it: each kept once, in the order given, counted', () => {
    const batch: Punch[] = [];
    for (let i = 0; i < 1234; i++) batch.push(punch(i));
    // Punches met twice in the write (the second one a duplicate), one before 2000, one of another terminal.
    batch.splice(150, 0, punch(149), punch(3));
    batch.splice(500, 0, punch(5000, { logTime: '1999-12-31 23:00:00' }));
    batch.splice(777, 0, punch(6000, { terminal: 'yard', device: 'SN-2' }));
    const r = j.ingest(batch);
    expect(r).toEqual({ added: 1234 + 1, duplicates: 2, quarantined: 1 });
    const got = rows();
    expect(got).toHaveLength(1236);
    // Row ids follow the order of the write (the queue breaks ties of one log time by id).
    const seen = new Set<string>();
    const expected = batch
      .filter((p) => {
        const k = `${p.device}|${p.logTime}|${p.biometricCode}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      })
      .map((p) => `${p.terminal}|${p.device}|${p.biometricCode}|${p.logTime}|${p.verifyType}|${p.punchState}`);
    expect(got.map((x) => `${x.terminal}|${x.device}|${x.code}|${x.t}|${x.v}|${x.ps}`)).toEqual(expected);
    expect(got.filter((x) => x.state === 'quarantined').map((x) => x.t)).toEqual(['1999-12-31 23:00:00']);
    expect(kept()).toEqual(['gate/pending=1234', 'gate/quarantined=1', 'yard/pending=1']);
    expect(kept()).toEqual(counted());

    // The same write again: every punch a duplicate, nothing written or counted.
    expect(j.ingest(batch)).toEqual({ added: 0, duplicates: batch.length, quarantined: 0 });
    // Half known, half new, in runs of every length around a statement's.
    const more = [...batch.slice(0, 137), ...Array.from({ length: 211 }, (_, i) => punch(10_000 + i))];
    expect(j.ingest(more)).toEqual({ added: 211, duplicates: 137, quarantined: 0 });
    expect(kept()).toEqual(counted());
  });

  it("a terminal's device learnt in the middle of a write: the punches filed by its name before it move to the device, as one by one", () => {
    // Punches without a serial, then the first with one (a real-time event, then the poll).
    const batch = [
      ...Array.from({ length: 150 }, (_, i) => punch(i, { device: undefined })),
      ...Array.from({ length: 150 }, (_, i) => punch(i + 100)),
    ];
    const r = j.ingest(batch);
    // The 50 punches read both ways (100..149) are one punch each, under the device.
    expect(r).toEqual({ added: 250, duplicates: 50, quarantined: 0 });
    expect(new Set(rows().map((x) => x.device))).toEqual(new Set(['SN-1']));
    expect(kept()).toEqual(['gate/pending=250']);
    expect(kept()).toEqual(counted());
  });
});
