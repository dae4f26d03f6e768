import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS } from '../../src/journal/migrations.js';
import { PUNCH_COUNTS_MIGRATION } from '../../src/journal/punch-counts.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * The punch counts kept per terminal and state (punch-counts.ts) are what the status, /metrics
 * and `check` show: after every kind of write they equal a count of the table itself.
 */
describe('punch counts kept with every write', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = Journal.open({
      path: tmp.path('j.db'),
      site: 's',
      clock,
      mode: 'owner',
      deadAfterAttempts: 2,
      retentionDays: 1,
    });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  const kept = (db = j.db) =>
    (
      db.prepare(`SELECT terminal, state, n FROM punch_counts WHERE n <> 0 ORDER BY terminal, state`).all() as {
        terminal: string;
        state: string;
        n: number;
      }[]
    ).map((r) => `${r.terminal}/${r.state}=${r.n}`);
  const table = (db = j.db) =>
    (
      db
        .prepare(`SELECT terminal, state, count(*) AS n FROM punches GROUP BY terminal, state ORDER BY terminal, state`)
        .all() as { terminal: string; state: string; n: number }[]
    ).map((r) => `${r.terminal}/${r.state}=${r.n}`);
  const totals = () =>
    (
      j.db.prepare(`SELECT state, n FROM punch_totals WHERE n <> 0 ORDER BY state`).all() as {
        state: string;
        n: number;
      }[]
    ).map((r) => `${r.state}=${r.n}`);
  const tableTotals = () =>
    (
      j.db.prepare(`SELECT state, count(*) AS n FROM punches GROUP BY state ORDER BY state`).all() as {
        state: string;
        n: number;
      }[]
    ).map((r) => `${r.state}=${r.n}`);
  const same = (step: string) => {
    expect(kept(), step).toEqual(table());
    expect(totals(), step).toEqual(tableTotals());
  };

  const punches = (terminal: string, n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({
      terminal,
      biometricCode: String(100 + i),
      logTime: `2026-11-22 ${String(8 + Math.floor((from + i) / 60)).padStart(2, '0')}:${String((from + i) % 60).padStart(2, '0')}:00`,
    }));

  it('ingest, claim, every answer, release, retry, release of quarantined, prune', async () => {
    j.ingest([
      ...punches('a', 30),
      ...punches('b', 20),
      { terminal: 'a', biometricCode: '9', logTime: '2099-01-01 00:00:00' },
    ]);
    j.ingest(punches('a', 10)); // duplicates
    same('ingest');
    expect(j.counts()).toMatchObject({ pending: 50, quarantined: 1 });

    const c1 = j.claim(25);
    same('claim');
    j.settle([
      ...c1.slice(0, 10).map((p) => ({ id: p.id, kind: 'delivered' as const })),
      ...c1.slice(10, 13).map((p) => ({ id: p.id, kind: 'duplicate' as const, message: 'already there' })),
      ...c1.slice(13, 18).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'no such employee' })),
      ...c1.slice(18, 20).map((p) => ({ id: p.id, kind: 'unknown' as const, message: 'not answered' })),
    ]);
    j.release(c1.slice(20).map((p) => p.id));
    same('settle and release');
    expect(j.counts()).toMatchObject({ delivered: 13, rejected: 5, inflight: 0 });

    // Claimed again from rejected; refused again: dead (deadAfterAttempts 2).
    const c2 = j.claim(100, { ignoreBackoff: true });
    same('claim from rejected');
    j.settle(
      c2.map((p) =>
        p.previousState === 'rejected'
          ? { id: p.id, kind: 'rejected' as const, message: 'still no' }
          : { id: p.id, kind: 'delivered' as const },
      ),
    );
    same('dead');
    expect(j.counts()).toMatchObject({ dead: 5, pending: 0 });

    expect(await j.queries.retry({ state: 'dead' })).toBe(5);
    same('retry');
    expect(await j.queries.releaseQuarantined()).toBe(1);
    same('release quarantined');

    // A claim held by this process is returned at the next start (the process is gone then).
    j.claim(3);
    j.close();
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock, mode: 'owner', retentionDays: 1 });
    same('claims of a process that is gone');
    expect(j.counts().inflight).toBe(0);

    clock.advance(3 * 86_400_000);
    j.ingest(punches('c', 1, 600));
    expect(j.prune()).toBeGreaterThan(0);
    same('prune');
  });

  it('a serial learnt with a punch held twice (the copy never sent leaves), and a push clock found steady (its held punches go)', () => {
    const at = (m: number) => `2026-11-22 09:0${m}:00`;
    // One punch under the terminal's name and under its device, as older journals could hold it.
    j.ingest([0, 1].map((m) => ({ terminal: 'gate-9', device: '', biometricCode: '8', logTime: at(m) })));
    j.ingest([0, 1].map((m) => ({ terminal: 'old-name', device: 'SN-9', biometricCode: '8', logTime: at(m) })));
    same('twins');
    j.ingest([{ terminal: 'gate-9', device: 'SN-9', biometricCode: '8', logTime: at(2) }]);
    expect(j.db.prepare(`SELECT count(*) FROM punches_superseded`).pluck().get()).toBe(2);
    same('serial learnt, twins superseded');

    // A push terminal 2 h ahead: held, until three punches agree on the offset; then released.
    const push = (code: string, time: string) =>
      j.ingest([{ terminal: 'p', biometricCode: code, logTime: time }], { timezone: 'UTC', pushed: true });
    push('1', '2026-11-22 14:00:00');
    clock.advance(60_000);
    push('2', '2026-11-22 14:01:00');
    same('held in the future');
    clock.advance(60_000);
    expect(push('3', '2026-11-22 14:02:00').released).toBe(2);
    same('released by a steady clock');
  });

  it('the migration counts what an older journal holds', () => {
    const path = tmp.path('old.db');
    const db = new Database(path);
    // Made by the punchgate before the counts (the migrations after it run at open too).
    const before = MIGRATIONS.indexOf(PUNCH_COUNTS_MIGRATION);
    for (const m of MIGRATIONS.slice(0, before)) applyMigration(db, m);
    db.pragma(`user_version = ${before}`);
    const ins =
      db.prepare(`INSERT INTO punches (terminal, biometric_code, log_time, site, state, created_at, updated_at)
        VALUES (?, ?, '2026-11-20 08:00:00', 's', ?, 0, 0)`);
    for (let i = 0; i < 7; i++) ins.run('a', String(i), i < 4 ? 'delivered' : 'pending');
    ins.run('b', '1', 'dead');
    db.close();
    const old = Journal.open({ path, site: 's', clock, mode: 'owner' });
    try {
      expect(kept(old.db)).toEqual(['a/delivered=4', 'a/pending=3', 'b/dead=1']);
      expect(old.counts()).toMatchObject({ delivered: 4, pending: 3, dead: 1, inflight: 0 });
    } finally {
      old.close();
    }
  });
});
