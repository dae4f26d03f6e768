import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal, JournalLockedError } from '../../src/journal/index.js';
import { isLogTime, wallClockAt, type Punch } from '../../src/punch.js';
import { REAL_TIME } from '../../src/journal/queries.js';
import { crashJournal } from '../helpers/crash.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR = 3_600_000;
const punch = (code: string, logTime: string, terminal = 'gate-1'): Punch => ({
  terminal,
  biometricCode: code,
  logTime,
});

describe('journal', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  const open = (mode: 'owner' | 'shared' | 'readonly' = 'owner', extra = {}) =>
    Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode, futureToleranceMinutes: 10, ...extra });

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = open();
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('stores a punch once however often it is read, and re-reading a whole log adds nothing', () => {
    const log = [
      punch('1', '2026-11-22 08:00:00'),
      punch('2', '2026-11-22 08:01:00'),
      punch('1', '2026-11-22 11:00:00'),
    ];
    expect(j.ingest(log)).toEqual({ added: 3, duplicates: 0, quarantined: 0 });
    expect(j.ingest(log)).toEqual({ added: 0, duplicates: 3, quarantined: 0 });
    expect(j.ingest([punch('1', '2026-11-22 08:00:00', 'gate-2')]).added).toBe(1);
    expect(j.counts().pending).toBe(4);
  });

  it('keeps a swapped device log apart from the old one', () => {
    j.ingest([{ ...punch('1', '2026-11-22 08:00:00'), device: 'SN-A' }]);
    expect(j.ingest([{ ...punch('1', '2026-11-22 08:00:00'), device: 'SN-B' }]).added).toBe(1);
  });

  it('gives each punch a devicelogId "<site>-<hash of the punch>" that stays the same across resends', () => {
    j.ingest([punch('7', '2026-11-22 08:00:00')]);
    const [a] = j.claim(10);
    expect(a!.devicelogId).toMatch(/^plant-a-[0-9a-f]{20}$/);
    j.settle([{ id: a!.id, kind: 'unknown' }]);
    const [b] = j.claim(10);
    expect(b!.devicelogId).toBe(a!.devicelogId);
  });

  it('quarantines times in the future beyond the tolerance, before 2000 and that do not exist; releases only real times', async () => {
    const r = j.ingest([
      punch('1', '2026-11-22 12:09:00'), // within 10 min tolerance
      punch('2', '2026-11-22 12:30:00'),
      punch('3', '1999-12-31 23:59:59'),
      punch('4', '2026-02-30 08:00:00'),
      punch('5', '2026-11-22 24:00:00'),
      // A ZK terminal's time 0 (a reset clock, an empty record): implausible too.
      punch('6', '2000-01-01 00:00:00'),
      punch('7', '2000-01-01 00:00:01'),
    ]);
    expect(r).toEqual({ added: 2, duplicates: 0, quarantined: 5 });
    expect(j.claim(10).map((p) => p.biometricCode)).toEqual(['7', '1']);
    // A time that does not exist is never released: an HRMS would refuse it, or read it as 2 March.
    expect(await j.queries.releaseQuarantined({})).toBe(3);
    expect(j.counts()).toMatchObject({ pending: 3, quarantined: 2 });
    expect(j.queries.quarantinedWithoutTime()).toEqual({ count: 2, example: '2026-02-30 08:00:00' });
    expect(j.claim(10).map((p) => p.biometricCode)).toEqual(['3', '6', '2']);
    expect(j.queries.quarantineSummary().map((q) => [q.reason, q.count])).toEqual([['no-time', 2]]);
  });

  it('reads a real time exactly as the ingest rule does (isLogTime), in SQL', () => {
    const times = [
      '2026-11-29 08:00:00',
      '2024-02-29 23:59:59',
      '2023-02-29 00:00:00',
      '2026-04-31 12:00:00',
      '2026-11-29 24:00:00',
      '2026-11-22 24:00:00',
      '2026-11-22 24:00:01',
      '2026-11-29 08:60:00',
      '2026-11-29 08:00:60',
      '2026-13-01 00:00:00',
      '0000-01-01 00:00:00',
      '9999-12-31 23:59:59',
      '2026-11-29T08:00:00',
      '2026-11-29 08:00:00.5',
      ' 2026-11-29 08:00:00',
      '1971--10--29 -23:-27',
    ];
    const sql = j.db.prepare(`SELECT ${REAL_TIME.replace(/log_time/g, '@t')} AS ok`);
    // Every day of a leap and a common year at 24:00:00 and 23:59:59 too.
    for (let d = Date.UTC(2023, 0, 1); d < Date.UTC(2025, 0, 1); d += 86_400_000) {
      const day = new Date(d).toISOString().slice(0, 10);
      times.push(`${day} 24:00:00`, `${day} 23:59:59`);
    }
    for (const t of times) expect(Boolean((sql.get({ t }) as { ok: number }).ok), t).toBe(isLogTime(t));
  });

  it('judges "the future" in the terminal time zone', () => {
    // 12:00 UTC is 21:00 in Tokyo: a Tokyo terminal punching at 20:59 is not in the future.
    expect(j.ingest([punch('1', '2026-11-22 20:59:00')], { timezone: 'Asia/Tokyo' }).added).toBe(1);
    expect(j.ingest([punch('2', '2026-11-22 20:59:00')], { timezone: 'UTC' }).quarantined).toBe(1);
  });

  it('claims in log-time order, and settles delivered, duplicate, rejected and unknown', () => {
    j.ingest([
      punch('c', '2026-11-22 09:00:00'),
      punch('a', '2026-11-22 07:00:00'),
      punch('b', '2026-11-22 08:00:00'),
      punch('d', '2026-11-22 10:00:00'),
    ]);
    const batch = j.claim(10);
    expect(batch.map((p) => p.biometricCode)).toEqual(['a', 'b', 'c', 'd']);
    expect(j.counts().inflight).toBe(4);
    const [a, b, c, d] = batch as [(typeof batch)[0], (typeof batch)[0], (typeof batch)[0], (typeof batch)[0]];
    j.settle([
      { id: a.id, kind: 'delivered' },
      { id: b.id, kind: 'duplicate', message: 'already exists' },
      { id: c.id, kind: 'rejected', message: 'Unknown biometric code c' },
      { id: d.id, kind: 'unknown' },
    ]);
    expect(j.counts()).toMatchObject({ delivered: 2, rejected: 1, pending: 1, inflight: 0 });
    const rows = j.queries.list();
    expect(rows.find((r) => r.biometricCode === 'b')!.duplicate).toBe(true);
    expect(rows.find((r) => r.biometricCode === 'd')!.attempts).toBe(0);
    const rej = rows.find((r) => r.biometricCode === 'c')!;
    expect(rej.attempts).toBe(1);
    expect(rej.nextAttemptAt).toBe(clock.now() + HOUR);
    expect(rej.lastMessage).toBe('Unknown biometric code c');
  });

  it('retries rejected punches 1 h doubling to 24 h, then makes them dead, and replays dead ones', async () => {
    j.close();
    j = open('owner', { deadAfterAttempts: 8, deadAfterDays: 365 });
    j.ingest([punch('x', '2026-11-22 09:00:00')]);
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const due = j.nextDueAt()!;
      if (due > clock.now()) {
        clock.set(due - 1);
        expect(j.claim(10)).toHaveLength(0);
        clock.set(due);
      }
      const [p] = j.claim(10);
      j.settle([{ id: p!.id, kind: 'rejected', message: 'no' }]);
      const next = j.nextDueAt();
      if (next !== null) delays.push((next - clock.now()) / HOUR);
    }
    expect(delays.slice(0, 6)).toEqual([1, 2, 4, 8, 16, 24]);
    expect(j.counts().dead).toBe(1);
    expect(j.nextDueAt()).toBeNull();
    expect(await j.queries.retry({ state: 'dead' })).toBe(1);
    expect(j.claim(10)).toHaveLength(1);
  });

  it('a step of the box clock forward is no time a refused punch waited: it is not given up for it', () => {
    // A box clock stepped 30 days forward (found by an adversarial trial under faketime) made
    // punches refused two minutes before dead at their next attempt: deadAfterDays had "passed".
    j.close();
    j = open('owner', { deadAfterAttempts: 100, deadAfterDays: 30 });
    j.ingest([punch('x', '2026-11-22 09:00:00')]);
    const [p] = j.claim(10);
    j.settle([{ id: p!.id, kind: 'rejected', message: 'no' }]);
    const step = 31 * 24 * HOUR;
    clock.set(clock.now() + step + 2 * HOUR);
    j.clockStepped(step);
    const [again] = j.claim(10);
    j.settle([{ id: again!.id, kind: 'rejected', message: 'no' }]);
    expect(j.counts().dead).toBe(0);
    expect(j.counts().rejected).toBe(1);
  });

  it('flush --all takes rejected punches before their retry time', () => {
    j.ingest([punch('x', '2026-11-22 09:00:00')]);
    const [p] = j.claim(1);
    j.settle([{ id: p!.id, kind: 'rejected', message: 'no' }]);
    expect(j.claim(10)).toHaveLength(0);
    expect(j.dueCount({ ignoreBackoff: true })).toBe(1);
    expect(j.claim(10, { ignoreBackoff: true })).toHaveLength(1);
  });

  it('returns inflight rows to the queue when the owner reopens after a crash', () => {
    j.ingest([punch('1', '2026-11-22 09:00:00'), punch('2', '2026-11-22 09:01:00')]);
    expect(j.claim(10)).toHaveLength(2);
    crashJournal(j);
    j = open('owner');
    expect(j.counts()).toMatchObject({ pending: 2, inflight: 0 });
  });

  it('lets one owner run at a time and one-shot commands share the file', () => {
    expect(() => open('owner')).toThrow(JournalLockedError);
    const shared = open('shared');
    shared.ingest([punch('9', '2026-11-22 09:00:00')]);
    expect(j.counts().pending).toBe(1);
    shared.close();
    const reader = open('readonly');
    expect(reader.isOwner).toBe(false);
    expect(reader.counts().pending).toBe(1);
    reader.close();
  });

  it('keeps delivered punches for the retention, so an old log cannot enqueue them again', () => {
    j.ingest([punch('1', '2026-11-22 09:00:00')]);
    const [p] = j.claim(1);
    j.settle([{ id: p!.id, kind: 'delivered' }]);
    clock.advance(399 * 24 * HOUR);
    expect(j.prune()).toBe(0);
    expect(j.ingest([punch('1', '2026-11-22 09:00:00')]).duplicates).toBe(1);
    clock.advance(2 * 24 * HOUR);
    // The newest row always stays, so that row ids (and the ids "<site>-<n>" of older journals) are never reused.
    expect(j.prune()).toBe(0);
    // The terminals' newest punch a retention (and a day, for their zones) past it too.
    j.ingest([punch('2', '2027-12-28 10:00:00')]);
    expect(j.prune()).toBe(1);
    const [newer] = j.claim(1);
    expect(newer!.id).toBe(2);
  });

  it('a punch delivered while the box clock was far behind stays once the clock is right: the terminal still holds it', async () => {
    // Found by an adversarial trial: a box with a dead RTC (500 days behind) delivered the day's
    // punches; once NTP set the clock, their delivered_at was past the retention, the prune
    // deleted them, and the terminal's log handed them in again as new (and they were sent twice).
    const behind = clock.now();
    j.ingest([punch('1', '2028-04-06 09:00:00'), punch('2', '2028-04-06 10:00:00'), punch('3', '2028-04-06 11:00:00')]);
    // Dated 500 days ahead of the box: quarantined, then released by the admin (`punches release`).
    expect(await j.queries.releaseQuarantined()).toBe(3);
    for (const p of j.claim(3)) j.settle([{ id: p.id, kind: 'delivered' }]);
    expect(j.counts().delivered).toBe(3);
    clock.advance(500 * 24 * HOUR); // the clock set right: 2028-04-06, the punches' own day
    expect(behind).toBeLessThan(clock.now());
    expect(j.prune()).toBe(0);
    expect(j.ingest([punch('1', '2028-04-06 09:00:00')]).duplicates).toBe(1);
    // Once their own time is past the retention too, and the terminals' newest punches say so, they go.
    clock.advance(402 * 24 * HOUR);
    j.ingest([punch('4', wallClockAt(clock.now(), 'UTC'))]);
    expect(j.prune()).toBe(3);
  });

  it('a box clock a year ahead deletes no punch the terminals still hold: the retention goes by their clocks then', () => {
    // Found by a trial of box clock steps: a box clock set a year ahead (the wrong year, a bad NTP
    // answer) made the retention delete the punches delivered in the months before, which the
    // terminals still hold; their logs, read again, enqueued them as new and they were sent twice.
    const deliver = () => {
      for (const p of j.claim(10)) j.settle([{ id: p.id, kind: 'delivered' }]);
    };
    clock.set(Date.UTC(2026, 9, 1, 12, 0, 0));
    j.ingest([punch('1', '2026-10-01 09:00:00'), punch('2', '2026-10-01 10:00:00')]);
    deliver();
    clock.set(Date.UTC(2026, 10, 22, 12, 0, 0));
    j.ingest([punch('3', '2026-11-22 09:00:00')]);
    deliver();
    clock.advance(365 * 24 * HOUR); // the box clock stepped (or started) a year ahead
    expect(j.prune()).toBe(0);
    expect(j.ingest([punch('1', '2026-10-01 09:00:00'), punch('2', '2026-10-01 10:00:00')]).duplicates).toBe(2);
    expect(j.counts()).toMatchObject({ pending: 0, delivered: 3 });
    // Once the terminals' punches are a retention old too, they go (the newest row stays, as ever).
    j.ingest([punch('4', '2027-11-22 09:00:00')]);
    deliver();
    expect(j.prune()).toBe(2);
  });

  it('records terminal and delivery state for one-shot commands', () => {
    j.terminals.update('gate-1', { serial: 'SN1', online: true, lastPollAt: 5, skewSeconds: -3 });
    expect(j.terminals.get('gate-1')).toMatchObject({ serial: 'SN1', online: true, skewSeconds: -3 });
    j.deliveryState.update({ auth: 'failed', authFailedSince: 7 });
    expect(j.deliveryState.get()).toMatchObject({ auth: 'failed', authFailedSince: 7 });
  });
});

describe('journal opened by a one-shot flush', () => {
  it('returns rows a crashed process left inflight, and lets the daemon start while it runs', () => {
    const tmp = tempDir();
    const clock = fakeClock();
    const path = tmp.path('j.db');
    try {
      const crashed = Journal.open({ path, site: 's', clock, mode: 'owner' });
      crashed.ingest([{ terminal: 't', biometricCode: '1', logTime: '2026-11-20 08:00:00' }]);
      crashed.claim(5);
      // A crash: the connection and every lock of the process go away, the claim stays recorded.
      crashJournal(crashed);
      const flush = Journal.open({ path, site: 's', clock, mode: 'shared' });
      expect(flush.claim(5)).toHaveLength(1);
      // The daemon can still start while the flush runs, and leaves the flush's live claim alone.
      const daemon = Journal.open({ path, site: 's', clock, mode: 'owner' });
      expect(daemon.counts()).toMatchObject({ pending: 0, inflight: 1 });
      daemon.close();
      flush.close();
    } finally {
      tmp.cleanup();
    }
  });
});
