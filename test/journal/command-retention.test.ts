import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const DAY_MS = 86_400_000;
const LIMITS = { max: 100, maxBytes: 1_000_000, resendAfterMs: 60_000, mayResend: () => true, isLast: () => false };

/**
 * A box left alone for months: the terminal commands (a CHECK at every DST change, each user
 * sync's commands, those of terminals since taken out of the config) stayed for ever. Settled
 * ones go after journal.retentionDays, with the daemon's nightly retention; open ones and the
 * newest id stay.
 */
describe('the retention of terminal commands', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  let store: PushStore;
  const ids = () =>
    (j.db.prepare(`SELECT id, state FROM terminal_commands ORDER BY id`).all() as { id: number; state: string }[]).map(
      (r) => `${r.id}:${r.state}`,
    );
  const prune = () => j.pruneInSteps(() => new Promise<void>((resolve) => setImmediate(resolve)));
  /** Queues `n` commands for `terminal`, hands them out, and settles them (done) now. */
  const settled = (terminal: string, n: number) => {
    for (let i = 0; i < n; i++) store.enqueue(terminal, `DATA UPDATE USERINFO PIN=${terminal}-${i}`);
    const sent = store.takeCommands(terminal, clock.now(), LIMITS);
    store.settleCommands(
      terminal,
      'SN1',
      sent.map((c) => ({ id: String(c.id), returnCode: 0, cmd: 'DATA' })),
      clock.now(),
    );
  };

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2025, 0, 10, 12));
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner', retentionDays: 400 });
    store = new PushStore(j.db, j, clock);
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('deletes settled commands past the retention, keeps open ones, recent ones and the newest id', async () => {
    settled('gone-gate', 30); // ids 1..30: a terminal since taken out of the config
    store.enqueue('gone-gate', 'INFO'); // id 31: never sent (its terminal went), still open
    clock.advance(100 * DAY_MS);
    settled('gate-1', 5); // ids 32..36
    clock.advance(320 * DAY_MS); // ids 1..30 are 420 days old, 32..36 are 320
    settled('gate-1', 1); // id 37
    expect(ids()).toHaveLength(37);
    await prune();
    expect(ids()).toEqual(['31:queued', '32:done', '33:done', '34:done', '35:done', '36:done', '37:done']);

    // A year on, every settled one is past the retention: the newest id stays, so that it is never handed out again.
    clock.advance(500 * DAY_MS);
    await prune();
    expect(ids()).toEqual(['31:queued', '37:done']);
    expect(store.enqueue('gate-1', 'CHECK').command.id).toBe(38);
  });

  it('reads a bounded window of commands per step, and stops at the first window of recent ones', async () => {
    const insert = j.db.prepare(
      `INSERT INTO terminal_commands (terminal, command, state, created_at, done_at) VALUES ('gate-1', 'CHECK', 'done', ?, ?)`,
    );
    const old = clock.now();
    clock.advance(401 * DAY_MS);
    // 100 old commands, then 12,000 recent ones: the walk needs not read the recent ones.
    j.db.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run(old, old);
      for (let i = 0; i < 12_000; i++) insert.run(clock.now(), clock.now());
    })();
    const windows: number[] = [];
    // Counts the rows each step reads through the step's window statement.
    const window = (j as unknown as { commandRetention: { window: { all: (...a: unknown[]) => unknown[] } } })
      .commandRetention.window;
    const all = window.all.bind(window);
    window.all = (...a: unknown[]) => {
      const rows = all(...a);
      windows.push(rows.length);
      return rows;
    };
    await prune();
    expect(ids()).toHaveLength(12_000);
    // 5,000 rows per window: the first held recent ones, so the walk was over.
    expect(windows).toEqual([5000]);
  });
});
