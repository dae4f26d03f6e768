import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { schemaProblems } from '../../src/journal/schema-check.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import {
  listCheckText,
  orCheck,
  rewriteStateChecks,
  rewriteTableText,
  STATE_CHECKS,
  tableText,
} from '../../src/journal/state-check.js';
import { PUNCH_STATES_24 } from '../../src/journal/not-routed.js';
import { backBeforeStateChecks } from '../helpers/older-journal.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/** A box clock after the punches' times (a punch from the future is quarantined). */
/** The schema version of a journal before the CHECKs were rewritten (later migrations run after it). */
const BEFORE_STATE_CHECKS = MIGRATIONS.indexOf(rewriteStateChecks);
const NOON = Date.UTC(2026, 10, 29, 12, 0, 0);

const tableSql = (db: Database, table: string) => tableText(db, table) ?? '';
/** The states a table's CHECK allows after every migration: the punches' got not_routed in 24 (not-routed.ts). */
const latest = (table: string, states: readonly string[]) => (table === 'punches' ? PUNCH_STATES_24 : states);

/** Temporary B-trees in a statement's program (a CHECK or partial index listing three states or more builds one per row). */
const ephemeral = (db: Database, sql: string) =>
  (db.prepare(`EXPLAIN ${sql}`).all() as { opcode: string }[]).filter((op) => op.opcode === 'OpenEphemeral').length;

/** The delivery's two writes of a punch, and the journal's insert, as journal.ts and sink-deliveries.ts run them. */
const WRITES = [
  `INSERT INTO punches (terminal, device, biometric_code, log_time, site, state, created_at, updated_at)
    VALUES ('t', '', '1', '2026-11-29 08:00:00', 's', 'pending', 0, 0) ON CONFLICT DO NOTHING`,
  `UPDATE punches SET claimed_from = state, claimed_by = 'h', state = 'inflight', updated_at = 1 WHERE id = 1`,
  `UPDATE punches SET state = 'delivered', claimed_from = NULL, claimed_by = NULL, delivered_at = 1 WHERE id = 1`,
  `UPDATE sink_deliveries SET state = 'inflight', claimed_from = state WHERE sink = 'erp' AND punch_id = 1`,
];

/** A journal at `path` with rows of every state in both tables, closed; what it said of them. */
function filledJournal(path: string, clock: ReturnType<typeof fakeClock>) {
  const j = Journal.open({ path, site: 's', clock, mode: 'owner' });
  try {
    return fill(j, clock);
  } finally {
    j.close();
  }
}

function fill(j: Journal, clock: ReturnType<typeof fakeClock>) {
  j.useSinks({ defaultSink: 'hrms', others: ['erp'] });
  j.ingest(
    ['08:00', '08:01', '08:02', '08:03', '08:04'].map((t, i) => ({
      terminal: 'gate',
      device: 'SN-1',
      biometricCode: String(i + 1),
      logTime: `2026-11-29 ${t}:00`,
    })),
  );
  j.ingest([{ terminal: 'gate', device: 'SN-1', biometricCode: '9', logTime: '1999-01-01 08:00:00' }]);
  const [a, b, c] = j.claim(3);
  j.settle([
    { id: a!.id, kind: 'delivered' },
    { id: b!.id, kind: 'rejected', message: 'unknown employee' },
  ]);
  clock.advance(60_000);
  void c; // stays inflight
  const erp = j.sinkQueue('erp');
  const [e] = erp.claim(1);
  erp.settle([{ id: e!.id, kind: 'delivered' }]);
  erp.claim(1);
  return {
    counts: j.counts(),
    erp: erp.counts(),
    rows: j.db.prepare(`SELECT id, state, attempts, claimed_by FROM punches ORDER BY id`).all(),
    sinkRows: j.db.prepare(`SELECT sink, punch_id, state FROM sink_deliveries ORDER BY sink, punch_id`).all(),
  };
}

describe('journal: the tables’ CHECK on state as comparisons, not a list (migration 18, state-check.ts)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('a fresh journal: no write of a punch builds a temporary B-tree; a state outside the list is still refused in both tables', () => {
    const j = Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(NOON), mode: 'owner' });
    try {
      for (const { table, states } of STATE_CHECKS)
        expect(tableSql(j.db, table)).toContain(orCheck(latest(table, states)));
      for (const sql of WRITES) expect(ephemeral(j.db, sql), sql).toBe(0);
      j.ingest([{ terminal: 'gate', biometricCode: '1', logTime: '2026-11-29 08:00:00' }]);
      expect(() => j.db.exec(`UPDATE punches SET state = 'lost'`)).toThrow(/CHECK constraint failed/);
      expect(() =>
        j.db.exec(
          `INSERT INTO sink_deliveries (sink, punch_id, log_time, terminal, state, updated_at) VALUES ('x', 1, '', 't', 'quarantined', 0)`,
        ),
      ).toThrow(/CHECK constraint failed/);
      expect(j.counts()).toMatchObject({ pending: 1 });
    } finally {
      j.close();
    }
  });

  it('a journal of the version before migrates in place: same rows and figures, exactly a fresh schema, and another connection open meanwhile reads the new CHECK too', () => {
    const path = tmp.path('j.db');
    const clock = fakeClock(NOON);
    const before = filledJournal(path, clock);
    expect(before.counts).toMatchObject({ delivered: 1, rejected: 1, inflight: 1, pending: 2, quarantined: 1 });

    const old = new Database(path);
    backBeforeStateChecks(old);
    old.pragma(`user_version = ${BEFORE_STATE_CHECKS}`);
    expect(schemaProblems(old)).toEqual([]);
    for (const { table, states } of STATE_CHECKS) expect(tableSql(old, table)).toContain(listCheckText(states));
    // The list builds a temporary B-tree for every punch written.
    expect(ephemeral(old, WRITES[1]!)).toBe(1);

    const m = Journal.open({ path, site: 's', clock, mode: 'owner' });
    try {
      expect(m.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(schemaProblems(m.db)).toEqual([]);
      expect(m.db.pragma('integrity_check', { simple: true })).toBe('ok');
      for (const sql of WRITES) expect(ephemeral(m.db, sql), sql).toBe(0);
      // The connection opened before the migration reads the schema again at its next statement
      // (the schema's version changed): the new CHECK, and programs without the temporary B-tree.
      expect(() => old.exec(`UPDATE punches SET state = 'lost'`)).toThrow(
        /CHECK constraint failed: state = 'pending' OR/,
      );
      for (const sql of WRITES) expect(ephemeral(old, sql), sql).toBe(0);
      // The same rows, but for the claims of the journal closed before: a claim whose process is
      // gone goes back to the queue at the next open, as at any start.
      const back = <T extends { state: string }>(r: T): T =>
        r.state === 'inflight' ? { ...r, state: 'pending', ...('claimed_by' in r ? { claimed_by: null } : {}) } : r;
      expect(m.counts()).toEqual({ ...before.counts, pending: 3, inflight: 0 });
      expect(m.sinkQueue('erp').counts()).toEqual({ ...before.erp, pending: before.erp.pending + 1, inflight: 0 });
      expect(m.db.prepare(`SELECT id, state, attempts, claimed_by FROM punches ORDER BY id`).all()).toEqual(
        (before.rows as { state: string }[]).map(back),
      );
      expect(m.db.prepare(`SELECT sink, punch_id, state FROM sink_deliveries ORDER BY sink, punch_id`).all()).toEqual(
        (before.sinkRows as { state: string }[]).map(back),
      );
    } finally {
      m.close();
      old.close();
    }
  });

  it('a list written with other spacing, case or quotes (as a schema check accepts it) migrates the same', () => {
    const path = tmp.path('j.db');
    Journal.open({ path, site: 's', clock: fakeClock(NOON), mode: 'owner' }).close();
    const db = new Database(path);
    backBeforeStateChecks(db);
    const [punches, sinks] = STATE_CHECKS;
    const variant = `check ( "state"   in ( ${punches.states.map((s) => `'${s}'`).join(' , ')} ) )`;
    rewriteTableText(db, [
      { table: 'punches', sql: tableSql(db, 'punches').replace(listCheckText(punches.states), variant) },
    ]);
    db.pragma(`user_version = ${BEFORE_STATE_CHECKS}`);
    expect(tableSql(db, 'punches')).toContain(variant);
    expect(schemaProblems(db)).toEqual([]);
    db.close();

    const m = Journal.open({ path, site: 's', clock: fakeClock(NOON), mode: 'owner' });
    try {
      expect(tableSql(m.db, 'punches')).toContain(orCheck(PUNCH_STATES_24));
      expect(tableSql(m.db, 'sink_deliveries')).toContain(orCheck(sinks.states));
      expect(schemaProblems(m.db)).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('the schema check tells a CHECK with a state of another case from punchgate’s, past the comment with an apostrophe before it', () => {
    const path = tmp.path('j.db');
    Journal.open({ path, site: 's', clock: fakeClock(NOON), mode: 'owner' }).close();
    const db = new Database(path);
    try {
      expect(tableSql(db, 'punches')).toMatch(/-- The device's serial number, '' when[\s\S]*state = 'quarantined'/);
      rewriteTableText(db, [
        { table: 'punches', sql: tableSql(db, 'punches').replace(`state = 'quarantined'`, `state = 'QUARANTINED'`) },
      ]);
      expect(schemaProblems(db)).toEqual(['the table punches is not as punchgate makes it']);
    } finally {
      db.close();
    }
  });

  it('a CHECK that is not the list punchgate wrote stops the migration: the journal stays as it was, every punch in it, and the error names the table', () => {
    const path = tmp.path('j.db');
    const clock = fakeClock(NOON);
    const before = filledJournal(path, clock);
    const db = new Database(path);
    backBeforeStateChecks(db);
    const [punches] = STATE_CHECKS;
    // A comment inside the list: the schema check reads past it, the migration does not take it.
    const odd = listCheckText(punches.states).replace(`'pending',`, `'pending', /* queued */`);
    rewriteTableText(db, [
      { table: 'punches', sql: tableSql(db, 'punches').replace(listCheckText(punches.states), odd) },
    ]);
    db.pragma(`user_version = ${BEFORE_STATE_CHECKS}`);
    expect(schemaProblems(db)).toEqual([]);
    db.close();

    let refusal: unknown;
    try {
      Journal.open({ path, site: 's', clock, mode: 'owner' }).close();
    } catch (e) {
      refusal = e;
    }
    // Exit 74 (journal unusable), with the path, what is wrong and the fix.
    expect(refusal).toMatchObject({ exitCode: 74, code: 'SCHEMA' });
    expect((refusal as Error).message).toBe(
      `the journal ${path} cannot be upgraded to schema ${SCHEMA_VERSION}: the punches table's CHECK on state is not the one punchgate wrote: ` +
        `put that text back as punchgate wrote it (sqlite3 ${path} '.schema punches' shows it), or use a backup made by punchgate backup; the journal is left as it was`,
    );
    const after = new Database(path, { readonly: true });
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(BEFORE_STATE_CHECKS);
      expect(tableSql(after, 'punches')).toContain(odd);
      expect(tableSql(after, 'sink_deliveries')).toContain(listCheckText(STATE_CHECKS[1].states));
      expect(after.prepare(`SELECT id, state, attempts, claimed_by FROM punches ORDER BY id`).all()).toEqual(
        before.rows,
      );
    } finally {
      after.close();
    }
  });
});
