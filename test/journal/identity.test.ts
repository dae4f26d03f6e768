import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS } from '../../src/journal/migrations.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

describe('a punch is known by its device', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('by the serial where the terminal reports one, else by the terminal name', () => {
    const j = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', clock: fakeClock() });
    const p = { biometricCode: '1', logTime: '2026-11-22 08:00:00' };
    expect(j.ingest([{ ...p, terminal: 'gate-1', device: 'SN-1' }]).added).toBe(1);
    // Renamed, or listed twice: the same device's punch is a duplicate.
    expect(j.ingest([{ ...p, terminal: 'door-1', device: 'SN-1' }]).duplicates).toBe(1);
    // Another device at the same name (swapped) is another punch.
    expect(j.ingest([{ ...p, terminal: 'gate-1', device: 'SN-2' }]).added).toBe(1);
    // One with no serial (an import, a real-time event before the serial) is the punch of the device
    // its terminal is known to be now (issue 30: one identity whatever the route).
    expect(j.ingest([{ ...p, terminal: 'gate-1' }]).duplicates).toBe(1);
    expect(j.ingest([{ ...p, terminal: 'gate-2' }]).added).toBe(1);
    expect(j.ingest([{ ...p, terminal: 'gate-2' }]).duplicates).toBe(1);
    // The clear policy looks a device's punches up by its serial too.
    j.settle(j.claim(10).map((c) => ({ id: c.id, kind: 'delivered' as const })));
    expect(j.queries.deliveredAmong('door-1', 'SN-1', [p])).toBe(1);
    expect(j.queries.undeliveredCount('door-1', 'SN-1')).toBe(0);
    j.close();
  });

  it('the identity migration upgrades a journal of the first version, keeping one copy of a punch read under two names', () => {
    const path = tmp.path('old.db');
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    applyMigration(old, MIGRATIONS[0]!);
    old.pragma('user_version = 1');
    const ins =
      old.prepare(`INSERT INTO punches (id, terminal, device, biometric_code, log_time, site, state, claimed_from,
        created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'plant', ?, ?, 0, 0)`);
    ins.run(1, 'gate-1', 'SN-1', '1001', '2026-11-20 08:00:00', 'delivered', null);
    ins.run(2, 'door-1', 'SN-1', '1001', '2026-11-20 08:00:00', 'pending', null); // re-read after a rename
    ins.run(3, 'gate-1', 'SN-1', '1002', '2026-11-20 08:05:00', 'pending', null);
    ins.run(4, 'door-1', 'SN-1', '1002', '2026-11-20 08:05:00', 'delivered', null); // this copy was delivered
    ins.run(5, 'clock', '', '1003', '2026-11-20 08:10:00', 'inflight', 'rejected'); // left by a crash
    ins.run(6, 'gate-2', '', '1001', '2026-11-20 08:00:00', 'pending', null);
    old.prepare(`INSERT INTO terminals (name, serial) VALUES ('gate-1', 'SN-1')`).run();
    old.close();

    const j = Journal.open({ path, site: 'plant', mode: 'owner', clock: fakeClock() });
    expect(j.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(j.queries.list().map((p) => [p.id, p.devicelogId, p.state])).toEqual([
      [1, 'plant-1', 'delivered'],
      [6, 'plant-6', 'pending'],
      [4, 'plant-4', 'delivered'],
      [5, 'plant-5', 'rejected'],
    ]);
    expect(
      j.db.prepare('SELECT id, terminal, state, superseded_by AS kept FROM punches_superseded ORDER BY id').all(),
    ).toEqual([
      { id: 2, terminal: 'door-1', state: 'pending', kept: 1 },
      { id: 3, terminal: 'gate-1', state: 'pending', kept: 4 },
    ]);
    expect(
      j.ingest([{ terminal: 'door-1', device: 'SN-1', biometricCode: '1001', logTime: '2026-11-20 08:00:00' }]),
    ).toMatchObject({ added: 0, duplicates: 1 });
    expect(j.terminals.get('gate-1')).toMatchObject({ serial: 'SN-1', readUpTo: null });
    // The next new row never takes an id that was handed out.
    j.ingest([{ terminal: 'gate-3', biometricCode: '9', logTime: '2026-11-21 08:00:00' }]);
    expect(j.queries.list({ terminal: 'gate-3' })[0]!.id).toBe(7);
    j.close();
  });
});

describe('text from outside stored in the journal', () => {
  it('is scrubbed of secrets before it is stored: HRMS messages and terminal strings', () => {
    const tmp = tempDir();
    const secret = 'tok-9f8e7d6c5b';
    const scrub = (t: string) => t.split(secret).join('[REDACTED]');
    const j = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', clock: fakeClock(), scrub });
    try {
      j.ingest([
        { terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' },
        { terminal: 'gate-1', biometricCode: '2', logTime: '2026-11-22 08:01:00' },
        { terminal: 'gate-1', biometricCode: '3', logTime: '2026-11-22 08:02:00' },
      ]);
      const [a, b, c] = j.claim(3);
      j.settle([
        { id: a!.id, kind: 'rejected', message: `Authorization: Bearer ${secret} is not allowed for code 1` },
        { id: b!.id, kind: 'duplicate', message: `already exists (${secret})` },
        { id: c!.id, kind: 'unknown', message: `echo ${secret}` },
      ]);
      j.terminals.update('gate-1', {
        lastError: `comm key ${secret} refused`,
        firmware: secret,
        serial: `SN-${secret}`,
      });
      j.deliveryState.update({ lastError: `HTTP 401: ${secret}`, lastResult: `3 sent: ${secret}` });
      const raw = new Database(tmp.path('j.db'), { readonly: true });
      const dump = JSON.stringify([
        raw.prepare('SELECT * FROM punches').all(),
        raw.prepare('SELECT * FROM terminals').all(),
        raw.prepare('SELECT * FROM delivery_state').all(),
      ]);
      raw.close();
      expect(dump).not.toContain(secret);
      expect(dump).toContain('Authorization: Bearer [REDACTED] is not allowed');
      expect(dump).toContain('comm key [REDACTED] refused');
    } finally {
      j.close();
      tmp.cleanup();
    }
  });
});
