import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * `punchgate check` after a package upgrade or rollback: it says what `punchgate run` will do with
 * the journal's schema version. An upgrade trial rolled a box back to an older package: check said
 * "PASS journal: quick_check ok" of the newer journal while the service failed at every start (exit
 * 74); and after an upgrade it passed the old journal while status and punches refused it.
 */
describe('check of a journal of another schema version', () => {
  let sandbox: ReturnType<typeof cliSandbox> | undefined;
  afterEach(() => sandbox?.tmp.cleanup());

  it('a journal a newer punchgate wrote: FAIL with the version and the fix, as run refuses it (exit 74); the file is not written', async () => {
    sandbox = cliSandbox();
    const path = sandbox.tmp.path('journal.db');
    const j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate', biometricCode: '7', logTime: '2026-11-22 08:00:00' }]);
    j.close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.pragma('journal_mode = DELETE');
    db.close();
    const before = readFileSync(path);

    const check = await sandbox.cli('check');
    const line = check.stdout.split('\n').find((l) => l.includes(' journal:')) ?? '';
    expect(line).toMatch(/^FAIL journal: /);
    expect(line).toContain(
      `was written by a newer punchgate (schema ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION})`,
    );
    expect(line).toContain('install that punchgate version again');
    expect(check.status).toBe(1);
    // The health check (read-only, no network) says the same.
    const quick = await sandbox.cli('check', '--quick');
    expect(quick.stdout).toMatch(/^FAIL journal: .*was written by a newer punchgate/m);
    expect(quick.status).toBe(1);

    const run = await sandbox.cli('run');
    expect(run.status).toBe(74);
    expect(run.stderr).toContain(`was written by a newer punchgate (schema ${SCHEMA_VERSION + 1}`);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a journal an older punchgate wrote: WARN that run upgrades it at its next start, with its punches counted', async () => {
    sandbox = cliSandbox();
    const path = sandbox.tmp.path('journal.db');
    // A journal as the punchgate of schema 10 left it: its migrations and a punch in its table.
    const old = 10;
    rmSync(path);
    const db = new Database(path);
    db.transaction(() => {
      for (const m of MIGRATIONS.slice(0, old)) applyMigration(db, m);
      db.pragma(`user_version = ${old}`);
    })();
    db.prepare(
      `INSERT INTO punches (terminal, biometric_code, log_time, site, state, created_at, updated_at) VALUES ('gate', '7', '2026-11-22 08:00:00', 'plant-a', 'pending', 0, 0)`,
    ).run();
    db.close();

    const check = await sandbox.cli('check');
    const line = check.stdout.split('\n').find((l) => l.includes(' journal:')) ?? '';
    expect(line).toMatch(/^WARN journal: /);
    expect(line).toContain('queue 1 pending');
    expect(line).toContain(`was written by an older punchgate (schema ${old}; this one needs ${SCHEMA_VERSION})`);
    expect(line).toContain('punchgate run upgrades it at its next start');
    expect(line).toContain('sudo systemctl restart punchgate');
  });
});
