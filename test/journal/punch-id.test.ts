import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/migrations.js';
import { hashedPunchId, PUNCH_IDS_MIGRATION } from '../../src/journal/punch-id.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/** A punch's identity, as the journal deduplicates by it. */
const identityOf = (p: Punch) =>
  p.device
    ? `device ${p.device} ${p.logTime} ${p.biometricCode}`
    : `terminal ${p.terminal} ${p.logTime} ${p.biometricCode}`;

/** Every punch of the journal with the id it is sent under (the delivery's claim) and the id its listing shows. */
function sentIds(j: Journal): { identity: string; sent: string; listed: string }[] {
  const listed = new Map(j.queries.list().map((p) => [p.id, p]));
  const out = j.claim(1_000_000).map((c) => {
    const p = listed.get(c.id)!;
    return { identity: identityOf(p), sent: c.devicelogId, listed: p.devicelogId };
  });
  j.release(out.length ? j.queries.list({ state: 'inflight' }).map((p) => p.id) : []);
  return out;
}

const punchArb = fc.record({
  terminal: fc.constantFrom('gate-1', 'gate-2', 'SN-1', 'import'),
  device: fc.constantFrom('', 'SN-1', 'SN-2', 'gate-1'),
  biometricCode: fc.constantFrom('1', '2', '10', '1042', 'card:0004521236', '1"2', 'ü'),
  logTime: fc
    .integer({ min: 0, max: 400 })
    .map((s) => `2026-11-22 08:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`),
});

describe('devicelogId: never the same for two punches of a site, the same for one punch on any box', () => {
  let tmp: ReturnType<typeof tempDir>;
  const clock = fakeClock();
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());
  let n = 0;
  const fresh = (site = 'plant-a') =>
    Journal.open({ path: tmp.path(`j${++n}.db`), site, mode: 'owner', clock, futureToleranceMinutes: 60 * 24 * 365 });

  it('two journals of one site: different punches never share an id, one punch has one id in both', () => {
    fc.assert(
      fc.property(fc.array(punchArb, { maxLength: 100 }), fc.array(punchArb, { maxLength: 100 }), (a, b) => {
        const ja = fresh();
        const jb = fresh();
        try {
          ja.ingest(a);
          jb.ingest(b);
          const byId = new Map<string, string>();
          for (const r of [...sentIds(ja), ...sentIds(jb)]) {
            expect(r.listed).toBe(r.sent);
            expect(r.sent).toMatch(/^plant-a-[0-9a-f]{20}$/);
            const seen = byId.get(r.sent);
            if (seen !== undefined) expect(seen).toBe(r.identity);
            byId.set(r.sent, r.identity);
          }
          // One id per identity, across the two journals.
          const ids = new Map<string, string>();
          for (const [id, identity] of byId) {
            expect(ids.get(identity) ?? id).toBe(id);
            ids.set(identity, id);
          }
        } finally {
          ja.close();
          jb.close();
        }
      }),
      { numRuns: 12 },
    );
  });

  it("a replaced box re-reading the same terminals sends the ids the old box sent, whatever the journal's row numbers", () => {
    const log = (terminal: string, device: string): Punch[] =>
      Array.from({ length: 50 }, (_, i) => ({
        terminal,
        device,
        biometricCode: String(1000 + (i % 7)),
        logTime: `2026-11-22 0${8 + Math.floor(i / 30)}:${String(i % 30).padStart(2, '0')}:00`,
      }));
    const old = fresh();
    old.ingest(log('gate-1', 'SN-1'));
    old.ingest(log('clock', ''));
    const oldIds = new Map(sentIds(old).map((r) => [r.identity, r.sent]));
    old.close();
    // The new box reads in another order, after other punches, with the device renamed in its config.
    const box = fresh();
    box.ingest([{ terminal: 'other', biometricCode: '1', logTime: '2026-11-21 08:00:00' }]);
    box.ingest(log('clock', '').reverse());
    box.ingest(log('front-door', 'SN-1'));
    const newIds = sentIds(box).filter((r) => !r.identity.startsWith('terminal other'));
    expect(newIds).toHaveLength(100);
    for (const r of newIds) expect(r.sent).toBe(oldIds.get(r.identity));
    box.close();
    // Another site's gateway reading the same terminal sends other ids.
    const other = fresh('plant-b');
    other.ingest(log('gate-1', 'SN-1'));
    for (const r of sentIds(other)) expect(r.sent).not.toBe(oldIds.get(r.identity)?.replace('plant-a', 'plant-b'));
    other.close();
  });

  it('is a function of exactly the identity the journal deduplicates by', () => {
    const base = {
      site: 's',
      terminal: 'gate-1',
      device: 'SN-1',
      biometricCode: '1042',
      logTime: '2026-11-22 08:00:00',
    };
    const id = hashedPunchId(base);
    // The terminal's name does not count where the device's serial is known.
    expect(hashedPunchId({ ...base, terminal: 'door' })).toBe(id);
    for (const other of [
      { device: 'SN-2' },
      { biometricCode: '1043' },
      { logTime: '2026-11-22 08:00:01' },
      { site: 't' },
      // No serial: the terminal's name is the identity, kept apart from a serial that reads the same.
      { device: '', terminal: 'SN-1' },
    ])
      expect(hashedPunchId({ ...base, ...other }), JSON.stringify(other)).not.toBe(
        id.replace(/^s-/, `${other.site ?? 's'}-`),
      );
    expect(hashedPunchId({ ...base, device: '', terminal: 'door' })).not.toBe(
      hashedPunchId({ ...base, device: '', terminal: 'gate-1' }),
    );
  });

  it('punches journalled before the upgrade keep the "<site>-<n>" they may have been sent with; new ones are hashed', () => {
    const path = tmp.path('old.db');
    const before = MIGRATIONS.indexOf(PUNCH_IDS_MIGRATION);
    expect(before).toBeGreaterThan(0);
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    for (const m of MIGRATIONS.slice(0, before)) applyMigration(db, m);
    db.pragma(`user_version = ${before}`);
    const ins = db.prepare(`INSERT INTO punches (id, terminal, device, biometric_code, log_time, site, state,
        created_at, updated_at, delivered_at) VALUES (?, 'gate-1', 'SN-1', ?, ?, 'plant', ?, 0, 0, ?)`);
    ins.run(1, '1001', '2026-11-20 08:00:00', 'delivered', 0);
    ins.run(2, '1002', '2026-11-20 08:01:00', 'pending', null);
    ins.run(41, '1003', '2026-11-20 08:02:00', 'rejected', null);
    // The id the old version sent, as it computed it.
    expect(db.prepare(`SELECT devicelog_id AS id FROM punches WHERE id = 41`).get()).toEqual({ id: 'plant-41' });
    db.close();

    const j = Journal.open({ path, site: 'plant', mode: 'owner', clock });
    expect(j.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(j.queries.list().map((p) => p.devicelogId)).toEqual(['plant-1', 'plant-2', 'plant-41']);
    j.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1004', logTime: '2026-11-20 08:03:00' }]);
    const sent = j.claim(10, { ignoreBackoff: true }).map((p) => [p.id, p.devicelogId]);
    expect(sent).toEqual([
      [2, 'plant-2'],
      [41, 'plant-41'],
      [
        42,
        hashedPunchId({
          site: 'plant',
          terminal: 'gate-1',
          device: 'SN-1',
          biometricCode: '1004',
          logTime: '2026-11-20 08:03:00',
        }),
      ],
    ]);
    j.close();
    // Reopened: the boundary is kept in the journal, not recomputed.
    const again = Journal.open({ path, site: 'plant', mode: 'readonly', clock });
    expect(again.queries.list().map((p) => p.devicelogId)).toEqual(['plant-1', ...sent.map(([, id]) => id)]);
    again.close();
  });
});
