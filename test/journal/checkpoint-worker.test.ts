import { statSync } from 'node:fs';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_RETRY_MS, type CheckpointTuning } from '../../src/journal/checkpoint-worker.js';
import { Journal, type JournalOptions } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/** `rows` punches of one terminal, minute after minute from `from` (a distinct set per call). */
function punches(round: number, rows: number) {
  return Array.from({ length: rows }, (_, i) => ({
    terminal: `t${i % 20}`,
    biometricCode: String(round),
    logTime: new Date(Date.UTC(2026, 0, 1) + (round * rows + i) * 60_000).toISOString().slice(0, 19).replace('T', ' '),
  }));
}

function capturingLogger() {
  const lines: { level: number; msg: string; err?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { logger, lines };
}

/**
 * The daemon's checkpoints run in a worker thread (issue 35): its main connection has SQLite's
 * automatic checkpoint off, never checkpoints itself while the worker works, and the WAL is still
 * copied into the database and started over, so it stays small however much is ingested.
 */
describe('journal checkpoints in a worker thread', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal | undefined;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => {
    j?.close();
    tmp.cleanup();
  });
  /** The daemon's journal (owner) at tmp/j.db, with the worker as given. */
  const openOwner = (checkpointInWorker: JournalOptions['checkpointInWorker'], logger?: pino.Logger) =>
    Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(), mode: 'owner', logger, checkpointInWorker });

  it('keeps the WAL bounded while punches are ingested, with no checkpoint on the main connection', async () => {
    const path = tmp.path('j.db');
    j = Journal.open({
      path,
      site: 's',
      clock: fakeClock(),
      mode: 'owner',
      checkpointInWorker: { intervalMs: 60_000 },
    });
    // The worker starts at the first 1000 rows written (a daemon that writes little does without it).
    expect(j.workerCheckpoints).toBeUndefined();
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const rounds = 40;
    const perRound = 2000;
    let framesNoCheckpoint = 0;
    for (let r = 0; r < rounds; r++) {
      const before = j.workerCheckpoints?.progressed ?? 0;
      j.ingest(punches(r, perRound));
      // Asked for after CHECKPOINT_KICK_ROWS rows (not on a timer here: its interval is a minute).
      await waitFor(() => j!.workerCheckpoints!.progressed > before, 10_000, 'a worker checkpoint');
      framesNoCheckpoint = Math.max(framesNoCheckpoint, j.workerCheckpoints!.last!.log);
    }
    const wal = statSync(`${path}-wal`).size;
    const db = statSync(path).size;
    expect(j.counts().pending).toBe(rounds * perRound);
    expect(j.mainCheckpoints).toBe(0);
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // Each checkpoint found only about a round's frames: the WAL started over after each.
    const pageSize = j.db.pragma('page_size', { simple: true }) as number;
    expect(framesNoCheckpoint * pageSize).toBeLessThan(db / 4);
    // The WAL file is no larger than about two rounds of writes, far less than all of them.
    expect(wal).toBeLessThan(3 * framesNoCheckpoint * pageSize + 64 * 1024);
    // All of it is in the database file: a second connection reads every punch from it.
    j.close();
    j = undefined;
    const again = Journal.open({ path, site: 's', clock: fakeClock(), mode: 'readonly' });
    expect(again.counts().pending).toBe(rounds * perRound);
    again.close();
  });

  it('a failing worker is a logged warning, and the journal checkpoints on its main thread again', async () => {
    const { logger, lines } = capturingLogger();
    j = openOwner({ failWith: 'disk I/O error (test)' }, logger);
    j.ingest(punches(0, 1500));
    await waitFor(() => j!.workerCheckpoints === undefined, 10_000, 'the worker given up');
    const warning = lines.find((l) => l.msg.includes('checkpoint thread failed'));
    expect(warning).toMatchObject({ level: 40, err: 'disk I/O error (test)' });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // Every 20,000 rows a checkpoint of its own, as before.
    for (let r = 1; r <= 12; r++) j.ingest(punches(r, 2000));
    expect(j.mainCheckpoints).toBeGreaterThan(0);
    expect(j.counts().pending).toBe(1500 + 12 * 2000);
  });

  it('a passing failure (a disk full for a while): the main thread checkpoints meanwhile, the status says so, and a new thread takes over once the wait is over (adversarial trial)', async () => {
    const { logger, lines } = capturingLogger();
    const clock = fakeClock();
    // The disk is "full" while the tuning says so: every worker started meanwhile fails.
    const tuning: CheckpointTuning = { failWith: 'SQLITE_FULL: database or disk is full (test)', intervalMs: 20 };
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock, mode: 'owner', logger, checkpointInWorker: tuning });
    j.ingest(punches(0, 1500));
    await waitFor(() => j!.checkpointState().thread === 'failed', 10_000, 'the worker failed');
    expect(j.checkpointState()).toMatchObject({ failures: 1, error: expect.stringContaining('SQLITE_FULL') });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // Within the wait: no new thread, however much is written.
    j.ingest(punches(1, 2000));
    expect(j.workerCheckpoints).toBeUndefined();
    // Still full after the wait: a second thread fails too, and the next wait is twice as long.
    clock.advance(CHECKPOINT_RETRY_MS);
    j.ingest(punches(2, 1500));
    await waitFor(() => j!.checkpointState().failures === 2, 10_000, 'the second worker failed');
    expect(j.checkpointState().thread).toBe('failed');
    clock.advance(CHECKPOINT_RETRY_MS);
    j.ingest(punches(3, 1500));
    expect(j.workerCheckpoints).toBeUndefined();
    // Space is back. After the wait, the next rows start a thread that works.
    delete tuning.failWith;
    clock.advance(CHECKPOINT_RETRY_MS);
    j.ingest(punches(4, 1500));
    expect(j.checkpointState().thread).toBe('restarted');
    await waitFor(() => j!.checkpointState().thread === 'running', 10_000, 'the thread back');
    expect(j.checkpointState()).toEqual({ thread: 'running', failedAt: null, error: null, failures: 0 });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(lines.filter((l) => l.msg.includes('checkpoint thread failed'))).toHaveLength(2);
    expect(lines.filter((l) => l.msg.includes('checkpoint thread is back'))).toHaveLength(1);
    // And the WAL is the worker's to keep small again: all of it copied, none of it by the main thread's own look.
    const before = j.workerCheckpoints!.progressed;
    j.ingest(punches(5, 1500));
    await waitFor(() => j!.workerCheckpoints!.progressed > before, 10_000, 'a checkpoint of the new thread');
    expect(j.counts().pending).toBe(1500 + 2000 + 1500 * 4);
  });

  it('a worker that finishes no checkpoint for 20,000 rows: the main connection checkpoints meanwhile, said once', () => {
    const { logger, lines } = capturingLogger();
    j = openOwner({ stall: true }, logger);
    for (let r = 0; r < 9; r++) j.ingest(punches(r, 5000));
    // 45,000 rows: two looks at 20,000 found no progress, so two checkpoints of its own.
    expect(j.mainCheckpoints).toBe(2);
    expect(lines.filter((l) => l.msg.includes('has not finished a checkpoint'))).toHaveLength(1);
    // Still the worker's job (it may be only slow): SQLite's automatic checkpoint stays off.
    expect(j.workerCheckpoints).toMatchObject({ completed: 0 });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });

  it("a push terminal's uploads (ingested inside the transaction of their stamp): the main connection's checkpoint runs right after the transaction", async () => {
    const clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock, mode: 'owner', checkpointInWorker: { stall: true } });
    const store = new PushStore(j.db, j, clock);
    const upload = (round: number) => ({
      upload: { terminal: 't0', serial: 'SN-0', table: 'ATTLOG', stamp: String(round), at: clock.now() },
      punches: punches(round, 5000),
      malformed: { count: 0, first: null },
    });
    for (let r = 0; r < 9; r++) store.commitPunches([upload(r)]);
    // Inside a transaction SQLite refuses a checkpoint (SQLITE_LOCKED): none ran yet.
    expect(j.mainCheckpoints).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    // Two looks at 20,000 rows found the worker stuck: one checkpoint, after the transaction.
    expect(j.mainCheckpoints).toBe(1);
    expect(j.counts().pending).toBe(45_000);
  });

  it('ends after a while with nothing written (automatic checkpoint back), and starts again with the next punches', async () => {
    const clock = fakeClock();
    j = Journal.open({
      path: tmp.path('j.db'),
      site: 's',
      clock,
      mode: 'owner',
      checkpointInWorker: { intervalMs: 20, retireAfterMs: 30_000 },
    });
    const autocheckpoint = () => j!.db.pragma('wal_autocheckpoint', { simple: true });
    const completed = () => j!.workerCheckpoints?.completed ?? 0;
    j.ingest(punches(0, 1500));
    expect(autocheckpoint()).toBe(0);
    await waitFor(() => completed() >= 3, 10_000, 'worker checkpoints');
    // Its checkpoints found nothing left to copy, but the clock has not moved: it stays.
    expect(j.workerCheckpoints).toBeDefined();
    clock.advance(30_000);
    await waitFor(() => j!.workerCheckpoints === undefined, 10_000, 'the idle worker ended');
    expect(autocheckpoint()).toBe(1000);
    expect(j.mainCheckpoints).toBe(0);
    j.ingest(punches(1, 1500));
    expect(j.workerCheckpoints).toMatchObject({ completed: 0 });
    expect(autocheckpoint()).toBe(0);
    // A delivery batch counts as use: 31 s after the punches but 2 s after the batch, it stays.
    clock.advance(29_000);
    j.together(() => j!.claim(10));
    clock.advance(2000);
    await waitFor(() => completed() >= 3, 10_000, 'worker checkpoints after the batch');
    expect(j.workerCheckpoints).toBeDefined();
    expect(j.counts().pending + j.counts().inflight).toBe(3000);
  });

  it('starts once delivery has claimed and settled 1000 rows, not for a batch now and then', () => {
    // A backlog journalled by another process (an import): this daemon ingests nothing itself.
    const filler = Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(), mode: 'owner' });
    filler.ingest(punches(0, 1500));
    filler.close();
    j = openOwner(true);
    const settleAll = (batch: readonly { id: number }[]) =>
      j!.settle(batch.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    // A site delivering a few punches at a time: no thread for them.
    for (let i = 0; i < 4; i++) settleAll(j.together(() => j!.claim(10)));
    expect(j.workerCheckpoints).toBeUndefined();
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // A backlog: 80 rows so far, then 500 claimed and settled (1080 rows).
    settleAll(j.together(() => j!.claim(500)));
    expect(j.workerCheckpoints).toMatchObject({ completed: 0 });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(j.counts().delivered).toBe(540);
  });

  it("short commands keep SQLite's automatic checkpoint and start no worker", () => {
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(), mode: 'owner' });
    expect(j.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(j.workerCheckpoints).toBeUndefined();
  });
});
