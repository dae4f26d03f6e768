import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { recountPunches } from '../../src/journal/punch-counts.js';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const DAY_MS = 86_400_000;
const ROWS = 50_000;

/**
 * The retention after a long time off (issue 35): 50,000 delivered punches past it go in
 * bounded steps, the event loop served between them (the daemon's push terminals, scrapes and
 * delivery get their turns), not in one synchronous delete.
 */
describe('retention in steps', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner', retentionDays: 400 });
    // A year of delivered punches, written as the bench's big journal is (one bulk transaction), then counted.
    const insert = j.db.prepare(`INSERT INTO punches (terminal, device, biometric_code, log_time, verify_type,
      punch_state, site, state, attempts, created_at, updated_at, delivered_at)
      VALUES (?, 'D1', ?, ?, 1, 0, 'plant-a', 'delivered', 1, ?, ?, ?)`);
    const first = clock.now() - 300 * DAY_MS;
    j.db.transaction(() => {
      for (let i = 0; i < ROWS; i++) {
        const at = first + i * 1000;
        const logTime = new Date(at).toISOString().slice(0, 19).replace('T', ' ');
        insert.run(`gate-${(i % 4) + 1}`, String(1000 + (i % 500)), logTime, at, at, at + 1000);
      }
    })();
    recountPunches(j.db);
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('deletes 50,000 punches past the retention in bounded steps with event-loop turns between them', async () => {
    expect(j.counts().delivered).toBe(ROWS);
    clock.advance(200 * DAY_MS); // all 50,000 are now past 400 days
    // A newer punch: the newest row always stays, so this one does and all 50,000 may go.
    const today = new Date(clock.now() - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(j.ingest([{ terminal: 'gate-1', biometricCode: '7', logTime: today }]).added).toBe(1);
    // An event-loop task that counts its turns while the prune runs (a push terminal's request would be served alike).
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const perStep: number[] = [];
    let stepsRun = 0;
    const deleted = await j.pruneInSteps(
      () => new Promise<void>((resolve) => setImmediate(resolve)),
      (fn) => {
        stepsRun++;
        const turnsBefore = turns;
        const r = fn() as IteratorResult<number>;
        // Nothing else ran during a step (it is synchronous)...
        expect(turns).toBe(turnsBefore);
        if (!r.done) perStep.push(r.value);
        return r as never;
      },
    );
    ticking = false;
    expect(deleted).toBe(ROWS);
    // ...and each step deleted a bounded chunk, so the work was cut in at least ROWS / chunk steps...
    expect(Math.max(...perStep)).toBeLessThanOrEqual(5000);
    expect(perStep.filter((n) => n > 0).length).toBeGreaterThanOrEqual(ROWS / 5000);
    // ...with the event loop's turn between every two of them.
    expect(turns).toBeGreaterThanOrEqual(stepsRun - 1);
    // The counts the status report reads moved with the rows.
    expect(j.counts()).toMatchObject({ delivered: 0, pending: 1 });
    expect((j.db.prepare(`SELECT count(*) AS n FROM punches`).get() as { n: number }).n).toBe(1);
  });

  it('deletes user backups past their retention a chunk at a time, the oldest first', () => {
    const store = new UserBackupStore(j.db, () => clock.now());
    const template = { finger: 0, valid: 1, template: Buffer.alloc(512, 7) };
    j.db.transaction(() => {
      for (let i = 0; i < 1200; i++) {
        store.save({
          terminal: 'gate-1',
          serial: 'SN1',
          fpVersion: '10',
          code: String(i),
          uid: i,
          name: `user ${i}`,
          card: 0,
          privilege: 0,
          reason: 'sync-users: inactive in the roster',
          templates: [template],
        });
        clock.advance(60_000);
      }
    })();
    clock.advance(100 * DAY_MS);
    const left = () => store.list().map((b) => Number(b.code));
    expect(store.prune(90, 500)).toBe(500);
    expect(Math.min(...left())).toBe(500);
    expect(store.prune(90, 500)).toBe(500);
    expect(store.prune(90, 500)).toBe(200);
    expect(store.prune(90, 500)).toBe(0);
    expect(left()).toEqual([]);
    expect((j.db.prepare(`SELECT count(*) AS n FROM user_backup_templates`).get() as { n: number }).n).toBe(0);
  });
});
