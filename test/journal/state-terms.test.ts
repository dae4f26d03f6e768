import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { OWED_BY_TIME_INDEXES } from '../../src/journal/owed-by-time.js';
import { PUNCH_COUNTS_MIGRATION } from '../../src/journal/punch-counts.js';
import { schemaProblems } from '../../src/journal/schema-check.js';
import { SHIFT_PROGRESS_MIGRATION } from '../../src/journal/shift-progress.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { STATE_TERMS_MIGRATION } from '../../src/journal/state-terms.js';
import type { Punch } from '../../src/punch.js';
import { keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { backBeforeStateChecks } from '../helpers/older-journal.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/** The three indexes the migration makes again (state-terms.ts). */
const REMADE = ['punches_refused', 'punches_owed_by_terminal', 'sink_owed_by_terminal'];

/** The statements of the older migrations that made them (their `IN (...)` form). */
function olderIndexStatements(): string[] {
  const out: string[] = [];
  for (const m of [PUNCH_COUNTS_MIGRATION, SHIFT_PROGRESS_MIGRATION])
    for (const s of m.split(';'))
      if (REMADE.some((name) => new RegExp(`CREATE INDEX ${name} `).test(s))) out.push(`${s.trim()};`);
  expect(out).toHaveLength(3);
  return out;
}

/** A journal file put back to the version before this migration: its three indexes as they were made. */
function backToPreviousVersion(path: string): void {
  const before = MIGRATIONS.indexOf(STATE_TERMS_MIGRATION);
  expect(before).toBeGreaterThan(0);
  const db = new Database(path);
  try {
    // The objects of a later migration first (owed-by-time.ts replaced two of the three).
    for (const name of [...REMADE, ...OWED_BY_TIME_INDEXES]) db.exec(`DROP INDEX IF EXISTS ${name}`);
    for (const s of olderIndexStatements()) db.exec(s);
    backBeforeStateChecks(db);
    db.pragma(`user_version = ${before}`);
    // Exactly what punchgate made at that version (the restore's schema check says so).
    expect(schemaProblems(db)).toEqual([]);
  } finally {
    db.close();
  }
}

/** The temporary B-trees in the program of the journal's insert (a CHECK or an index's WHERE listing three states or more). */
function ephemeralTablesOfInsert(db: Database): number {
  const program = db
    .prepare(
      `EXPLAIN INSERT INTO punches (terminal, device, biometric_code, log_time, verify_type, punch_state, site, state,
        last_message, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    )
    .all(...Array<null>(11).fill(null)) as { opcode: string }[];
  return program.filter((op) => op.opcode === 'OpenEphemeral').length;
}

describe('journal: the partial indexes on three states, made again without a list (state-terms.ts)', () => {
  it('an insert builds no temporary B-tree for them; a journal of the version before migrates to exactly a fresh one, its status figures the same', () => {
    const tmp = tempDir();
    try {
      const path = tmp.path('journal.db');
      const clock = fakeClock();
      const j = Journal.open({ path, site: 'plant-a', clock, mode: 'owner', deadAfterAttempts: 2 });
      // None: no index adds one, and since migration 18 (state-check.ts) neither does the table's CHECK.
      expect(ephemeralTablesOfInsert(j.db)).toBe(0);
      const punch = (code: string, logTime: string): Punch => ({
        terminal: 'gate',
        device: 'SN-1',
        biometricCode: code,
        logTime,
      });
      j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
      j.ingest([
        punch('1', '2026-11-22 08:00:00'),
        punch('2', '2026-11-22 08:01:00'),
        punch('3', '2026-11-22 08:02:00'),
        punch('4', '1999-01-01 08:00:00'),
      ]);
      // 1 delivered, 2 refused (rejected), 3 pending; 4 quarantined (before 2000).
      const claimed = j.claim(2);
      j.settle([
        { id: claimed[0]!.id, kind: 'delivered' },
        { id: claimed[1]!.id, kind: 'rejected', message: 'unknown employee' },
      ]);
      const figures = (x: Journal) => ({
        counts: x.counts(),
        quarantine: x.queries.quarantineSummary(),
        refused: x.queries.refusedPunches(),
        owed: Object.fromEntries(x.shiftSyncProgress(undefined, [{ name: 'gate' }])),
        owedErp: Object.fromEntries(x.shiftSyncProgress('erp', [{ name: 'gate' }])),
      });
      const expected = figures(j);
      expect(expected.counts).toMatchObject({ delivered: 1, rejected: 1, pending: 1, quarantined: 1 });
      expect(expected.refused).toEqual([{ message: 'unknown employee', code: '2', state: 'rejected', count: 1 }]);
      expect(expected.owed).toEqual({ gate: { oldestUndelivered: '2026-11-22 08:01:00', oldestRefused: true } });
      j.close();

      backToPreviousVersion(path);
      const m = Journal.open({ path, site: 'plant-a', clock, mode: 'owner', deadAfterAttempts: 2 });
      try {
        expect(m.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(schemaProblems(m.db)).toEqual([]);
        // The connection that migrated reads its new schema at once (migration 18 included).
        expect(ephemeralTablesOfInsert(m.db)).toBe(0);
        expect(figures(m)).toEqual(expected);
      } finally {
        m.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('a journal of the version before, with punches waiting, migrates under punchgate run: each reaches the HRMS once', async () => {
    const stack = await startStack({ delivery: { batchSize: 7 } });
    const path = stack.tmp.path('journal.db');
    const j = Journal.open({ path, site: 'plant-t', mode: 'owner' });
    j.ingest(
      Array.from({ length: 30 }, (_, i) => ({
        terminal: 'gate-1',
        device: 'SN-1',
        biometricCode: String(4000 + i),
        logTime: `2026-11-23 06:${String(i).padStart(2, '0')}:00`,
      })),
    );
    j.settle(j.claim(5).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    j.close();
    backToPreviousVersion(path);

    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => stack.hrms.attendance().length >= 25, 20_000, 'the waiting punches at the HRMS');
      stack.terminals[0]!.addPunch({ userId: '4999', logTime: '2026-11-23 07:00:00' });
      await waitFor(() => stack.hrms.attendance().length >= 26, 20_000, 'a new punch after the migration');
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      expect(stack.hrms.attendance()).toHaveLength(26);
      expect(new Set(stack.hrms.received().map((p) => p.devicelogId)).size).toBe(26);
      expect(keys(stack.hrms.attendance())).toContain('4999@2026-11-23 07:00:00');
      const after = Journal.open({ path, site: 'plant-t', mode: 'readonly' });
      try {
        expect(after.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(schemaProblems(after.db)).toEqual([]);
        expect(after.counts()).toMatchObject({ delivered: 31, pending: 0, inflight: 0 });
      } finally {
        after.close();
      }
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await stack.stop();
    }
  }, 90_000);
});
