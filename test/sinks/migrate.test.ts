import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { MIGRATIONS } from '../../src/journal/migrations.js';
import { OWED_BY_TIME_INDEXES } from '../../src/journal/owed-by-time.js';
import { SINK_DELIVERIES_MIGRATION } from '../../src/journal/sink-deliveries.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { backBeforeStateChecks } from '../helpers/older-journal.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A journal of the punchgate before sinks (its schema, its pending punches) under a config that
 * adds a second sink: it migrates, its pending punches reach the default sink exactly once, and
 * the new sink gets the punches journalled from then on (docs/sinks.md).
 */
describe('a journal from before sinks', () => {
  it('migrates; its pending punches reach the default sink once, the new sink gets what comes after', async () => {
    const stack = await startStack({ delivery: { batchSize: 7 } });
    const b = await startHrmsSim({ tokens: ['tok-b'] });
    const path = stack.tmp.path('journal.db');
    // The journal as the punchgate before this change leaves it: the schema up to the migration
    // before the sinks', with 25 pending punches and 5 delivered.
    const j = Journal.open({ path, site: 'plant-t', mode: 'owner' });
    j.ingest(
      Array.from({ length: 30 }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(3000 + i),
        logTime: `2026-11-23 06:${String(i).padStart(2, '0')}:00`,
      })),
    );
    j.settle(j.claim(5).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    j.close();
    const before = MIGRATIONS.indexOf(SINK_DELIVERIES_MIGRATION);
    const db = new Database(path);
    // The CHECK on state as it was then (state-check.ts), before its table is dropped.
    backBeforeStateChecks(db);
    for (const t of ['sinks', 'sink_deliveries', 'sink_counts', 'sink_state']) db.exec(`DROP TABLE ${t}`);
    // And the objects of later migrations on the tables it keeps (the shift sync's indexes,
    // shift-progress.ts and owed-by-time.ts).
    for (const name of ['punches_owed_by_terminal', ...OWED_BY_TIME_INDEXES]) db.exec(`DROP INDEX IF EXISTS ${name}`);
    // And punches_refused as the counts' migration made it (a later one made it again, state-terms.ts).
    db.exec(`DROP INDEX punches_refused`);
    db.exec(
      `CREATE INDEX punches_refused ON punches (state, last_message, biometric_code) WHERE state IN ('rejected', 'dead', 'quarantined')`,
    );
    db.pragma(`user_version = ${before}`);
    db.close();

    writeFileSync(stack.tmp.path('b-token'), 'tok-b\n');
    stack.writeConfig(undefined, (c) =>
      Object.assign(c, { sinks: [{ name: 'b', kind: 'hrms', baseUrl: b.url, tokenFile: stack.tmp.path('b-token') }] }),
    );
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => stack.hrms.attendance().length >= 25, 20_000, 'the old pending punches at the default sink');
      const t = stack.terminals[0]!;
      t.addPunch({ userId: '3999', logTime: '2026-11-23 07:00:00' });
      await waitFor(
        () => b.attendance().length === 1 && stack.hrms.attendance().length === 26,
        20_000,
        'the new punch at both sinks',
      );
      expect(keys(b.attendance())).toEqual(['3999@2026-11-23 07:00:00']);
      expect(stack.hrms.attendance()).toHaveLength(26);
      expect(new Set(stack.hrms.received().map((p) => p.devicelogId)).size).toBe(26);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      const after = Journal.open({ path, site: 'plant-t', mode: 'readonly' });
      try {
        expect(after.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
        expect(after.counts()).toMatchObject({ delivered: 31, pending: 0 });
        expect(after.sinkQueue('b').counts()).toMatchObject({ delivered: 1, pending: 0 });
      } finally {
        after.close();
      }
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await b.stop();
      await stack.stop();
    }
  }, 90_000);
});
