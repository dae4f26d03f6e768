import { writeFileSync } from 'node:fs';
import type { fsync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalSync } from '../../src/journal/wal-sync.js';
import { tempDir } from '../helpers/tmp.js';

type Done = (err: NodeJS.ErrnoException | null) => void;

/**
 * The WAL's disk syncs off the event loop, and who may be told "on the disk": a waiter is
 * answered only by a sync that began after it asked, never by one already running (whose start
 * may have come before its commit was written).
 */
describe('WalSync: syncs of the write-ahead log in the thread pool', () => {
  let tmp: ReturnType<typeof tempDir>;
  /** The syncs begun and not yet ended, in order: end one with its callback. */
  let pending: Done[];
  let errors: unknown[];
  let sync: WalSync;
  const heldSync = ((_fd: number, cb: Done) => void pending.push(cb)) as unknown as typeof fsync;

  beforeEach(() => {
    tmp = tempDir();
    writeFileSync(tmp.path('j.db-wal'), '');
    pending = [];
    errors = [];
    // The file system's probe after a sync answers at once here (its own tests are below).
    sync = new WalSync(
      tmp.path('j.db'),
      (e) => errors.push(e),
      heldSync,
      undefined,
      (done) => done(null),
    );
    expect(sync.available()).toBe(true);
  });
  afterEach(() => {
    sync.close();
    tmp.cleanup();
  });

  /** Whether each promise has settled yet, after the microtasks ran. */
  async function states(ps: Promise<void>[]): Promise<string[]> {
    const out = ps.map(() => 'waiting');
    ps.forEach((p, i) =>
      p.then(
        () => (out[i] = 'synced'),
        () => (out[i] = 'refused'),
      ),
    );
    await new Promise((r) => setImmediate(r));
    return out;
  }

  it('answers a waiter only after a sync that began after it asked; those who ask meanwhile share the next one', async () => {
    const first = sync.synced();
    expect(pending).toHaveLength(1);
    // Commits made while the first sync runs: not covered by it.
    const second = sync.synced();
    const third = sync.synced();
    expect(pending).toHaveLength(1); // one sync at a time
    expect(await states([first, second, third])).toEqual(['waiting', 'waiting', 'waiting']);
    pending.shift()!(null);
    expect(await states([first, second, third])).toEqual(['synced', 'waiting', 'waiting']);
    expect(pending).toHaveLength(1); // the next sync began at once, for both
    pending.shift()!(null);
    expect(await states([second, third])).toEqual(['synced', 'synced']);
    expect(pending).toHaveLength(0); // nobody left waiting: no more syncs
    expect(sync.done).toBe(2);
  });

  it('a failed sync refuses its waiters and those after it; from then on commits must sync themselves', async () => {
    const first = sync.synced();
    const second = sync.synced();
    pending.shift()!(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    expect(await states([first, second])).toEqual(['refused', 'refused']);
    expect(errors).toHaveLength(1);
    expect(sync.available()).toBe(false);
    expect(await states([sync.synced()])).toEqual(['refused']);
    expect(pending).toHaveLength(0);
  });

  it('closing syncs once more and answers everyone still waiting', async () => {
    const running = sync.synced();
    const next = sync.synced();
    sync.close();
    expect(await states([running, next])).toEqual(['synced', 'synced']);
    // The sync that was running ends after the close: it answers nobody twice, and nothing breaks.
    pending.shift()!(null);
    expect(await states([running, next])).toEqual(['synced', 'synced']);
  });

  it('tells how long each completed sync took, after its waiters were answered; a listener that throws is dropped, the sync still answers', async () => {
    const times: number[] = [];
    const stop = sync.onSynced((s) => times.push(s));
    sync.onSynced(() => {
      throw new Error('a broken listener');
    });
    const waiter = sync.synced();
    const began = performance.now();
    while (performance.now() - began < 30) {
      // the disk takes 30 ms
    }
    pending.shift()!(null);
    expect(await states([waiter])).toEqual(['synced']);
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThanOrEqual(0.03);
    expect(times[0]).toBeLessThan(10);
    // The broken listener is gone; the good one hears the next sync; a failed sync tells no time.
    const second = sync.synced();
    pending.shift()!(null);
    expect(await states([second])).toEqual(['synced']);
    expect(times).toHaveLength(2);
    stop();
    const third = sync.synced();
    pending.shift()!(null);
    expect(await states([third])).toEqual(['synced']);
    expect(times).toHaveLength(2);
    sync.onSynced((s) => times.push(s));
    const failing = sync.synced();
    pending.shift()!(Object.assign(new Error('EIO'), { code: 'EIO' }));
    expect(await states([failing])).toEqual(['refused']);
    expect(times).toHaveLength(2);
    expect(errors).toHaveLength(1);
  });

  it('plain requests (the deliverer) coalesce the same way and need no waiter', () => {
    sync.request();
    sync.request();
    sync.request();
    expect(pending).toHaveLength(1);
    pending.shift()!(null);
    expect(pending).toHaveLength(1); // one more, for the commits made meanwhile
    pending.shift()!(null);
    expect(pending).toHaveLength(0);
  });
});

/**
 * After a sync that waiters wait for, the file system must still take a new file before they are
 * told OK: ext4 can end an fsync with success for data it drops when a disk error aborts it during
 * that fsync (file-system-probe.ts; the read-only-disk test shows it on a real disk).
 */
describe('WalSync: a sync is trusted only while the file system still takes writes after it', () => {
  let tmp: ReturnType<typeof tempDir>;
  let pending: Done[];
  let probes: Done[];
  let errors: unknown[];
  let sync: WalSync;
  const heldSync = ((_fd: number, cb: Done) => void pending.push(cb)) as unknown as typeof fsync;
  const erofs = () => Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });

  beforeEach(() => {
    tmp = tempDir();
    writeFileSync(tmp.path('j.db-wal'), '');
    pending = [];
    probes = [];
    errors = [];
    sync = new WalSync(
      tmp.path('j.db'),
      (e) => errors.push(e),
      heldSync,
      undefined,
      (done) => void probes.push(done),
      () => null,
    );
    expect(sync.available()).toBe(true);
  });
  afterEach(() => {
    sync.close();
    tmp.cleanup();
  });

  async function state(p: Promise<void>): Promise<string> {
    let out = 'waiting';
    p.then(
      () => (out = 'synced'),
      () => (out = 'refused'),
    );
    await new Promise((r) => setImmediate(r));
    return out;
  }

  it('answers no waiter before the probe after its sync has ended well', async () => {
    const waiter = sync.synced();
    pending.shift()!(null);
    expect(probes).toHaveLength(1);
    expect(await state(waiter)).toBe('waiting');
    const later = sync.synced(); // committed while the probe runs: the next sync covers it
    expect(pending).toHaveLength(0); // still one sync at a time, its probe included
    probes.shift()!(null);
    expect(await state(waiter)).toBe('synced');
    expect(pending).toHaveLength(1);
    pending.shift()!(null);
    probes.shift()!(null);
    expect(await state(later)).toBe('synced');
    expect(errors).toEqual([]);
  });

  it('a sync that ended well on a file system that then refuses a new file refuses its waiters, as a failed sync', async () => {
    const waiter = sync.synced();
    pending.shift()!(null);
    const meanwhile = sync.synced();
    const answers = Promise.all([state(waiter), state(meanwhile)]);
    probes.shift()!(erofs());
    expect(await answers).toEqual(['refused', 'refused']);
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('EROFS');
    expect(sync.available()).toBe(false); // each commit syncs itself from now on
    expect(sync.done).toBe(0);
  });

  it('a sync nobody waits for (delivery) spares the probe', () => {
    sync.request();
    pending.shift()!(null);
    expect(probes).toHaveLength(0);
    expect(sync.done).toBe(1);
  });

  it('closing asks the probe at once before answering those still waiting', async () => {
    const closing = new WalSync(
      tmp.path('j.db'),
      (e) => errors.push(e),
      heldSync,
      undefined,
      (done) => void probes.push(done),
      erofs,
    );
    expect(closing.available()).toBe(true);
    const waiter = closing.synced();
    closing.close();
    expect(await state(waiter)).toBe('refused');
  });
});
