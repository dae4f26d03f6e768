import { describe, expect, it } from 'vitest';
import { ALERT } from '../../src/status/alert-words.js';

/** Alert words built from what the status knows: each says what is, in numbers that add up (found by an adversarial trial). */

/** The summary of unknown push serials counts serials, not (serial, address) pairs (an adversarial trial saw "6" for 4). */
describe('unknown serials pushing, summed up', () => {
  it('counts each serial once, whatever the addresses it pushed from, and names each once', () => {
    const rows = [
      { serial: 'FAKE1', address: '127.0.0.2', count: 3, lastSeenAt: '2026-11-22T09:00:00.000Z' },
      { serial: 'FAKE1', address: '127.0.0.3', count: 2, lastSeenAt: '2026-11-22T09:00:00.000Z' },
      { serial: 'FAKE2', address: '127.0.0.2', count: 1, lastSeenAt: '2026-11-22T09:00:00.000Z' },
      { serial: 'FAKE2', address: '127.0.0.4', count: 1, lastSeenAt: '2026-11-22T09:00:00.000Z' },
      { serial: 'FAKE3', address: '127.0.0.2', count: 1, lastSeenAt: '2026-11-22T09:00:00.000Z' },
      { serial: 'FAKE4', address: '127.0.0.5', count: 1, lastSeenAt: '2026-11-22T09:00:00.000Z' },
    ];
    const a = ALERT.pushUnknownSerials(rows);
    expect(a.cause).toMatch(
      /^4 unknown serials are pushing \(9 requests refused, from 127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4, 127\.0\.0\.5; e\.g\. SN=FAKE1, SN=FAKE2, SN=FAKE3; last 2026-11-22 09:00:00 \+00:00\)/,
    );
  });
});

describe('uploads kept raw, said as they are', () => {
  const t = { name: 'door' } as Parameters<typeof ALERT.pushKept>[0];
  const k = { table: 'ATTLOG', lines: 4, lastAt: null, lastReason: 'line 1: no tab between the fields' };

  it('says how many are kept and how many were dropped, and never "they are kept" when none is', () => {
    expect(ALERT.pushKept(t, { ...k, held: 2, dropped: 1 }).cause).toBe(
      'terminal door: 3 ATTLOG upload(s) answered OK could not be turned into punches (4 lines in all, last -: line 1: no tab between the fields): 2 kept raw in the journal, 1 more dropped to stay within adms.keptUploads.maxBytes',
    );
    const none = ALERT.pushKept(t, { ...k, held: 0, lines: 0, dropped: 2 });
    expect(none.cause).toBe(
      'terminal door: 2 ATTLOG upload(s) answered OK could not be turned into punches (last -: line 1: no tab between the fields); all 2 were dropped to stay within adms.keptUploads.maxBytes, none is kept',
    );
    expect(none.fix).toContain('raise adms.keptUploads.maxBytes');
    // Dropped for their age: said so, with the bound that dropped them (not "to stay within").
    const aged = ALERT.pushKept(t, { ...k, held: 0, lines: 0, dropped: 2, droppedOld: 2 });
    expect(aged.cause).toContain(
      'all 2 were dropped for their age (older than adms.keptUploads.maxAgeDays), none is kept',
    );
    expect(aged.fix).toContain('raise adms.keptUploads.maxAgeDays to keep the next ones');
  });

  it('says user uploads carry no punch and sends no one to a reparse that does not read them', () => {
    for (const table of ['OPERLOG', 'USERINFO', 'tabledata:user']) {
      const a = ALERT.pushKept(t, {
        ...k,
        table,
        lastReason: 'line 1: unknown record type "OPTION"',
        held: 1,
        dropped: 0,
      });
      expect(a.cause).toBe(
        `terminal door: 1 ${table} upload(s) answered OK held user records punchgate could not read (4 lines in all, last -: line 1: unknown record type "OPTION"): 1 kept raw in the journal; user records carry no punch: no attendance is missing`,
      );
      expect(a.fix).not.toContain('reparse');
      expect(a.fix).toContain('punchgate terminals users door');
    }
  });
});

describe('punches quarantined as in the future', () => {
  const q = { terminal: 'door', count: 4, from: '2099-01-01 08:00:00', to: '2099-01-01 08:03:00', push: true };

  it('far beyond any time zone: no clock learnt, no tolerance offered, release only if right', () => {
    const a = ALERT.quarantinedFuture({ ...q, offsetSeconds: 2_303_684_340 });
    expect(a.cause).toMatch(/: further than any time zone could explain, so they stay quarantined$/);
    expect(a.cause).not.toContain('taken as its clock');
    expect(a.fix).not.toContain('futureToleranceMinutes');
    expect(a.fix).toContain('only if they are right');
  });

  it('within a day: the zone, the tolerance and the clock learnt from a push terminal, as before', () => {
    const a = ALERT.quarantinedFuture({
      ...q,
      from: '2026-11-22 10:00:00',
      to: '2026-11-22 10:00:00',
      offsetSeconds: 7196,
    });
    expect(a.cause).toContain('several more at the same offset are taken as its clock and delivered');
    expect(a.fix).toContain('journal.futureToleranceMinutes: 130');
  });
});

/** Punches of a reset clock: the alert stays after the clock is right, so it gives the whole fix (an adversarial trial). */
describe('punches recorded while a clock was behind', () => {
  const q = { terminal: 'lobby', count: 13, from: '2000-01-01 00:05:00', to: '2000-01-01 00:05:31' };

  it('says to set the clock first (on the terminal for a push terminal), and that a release sends the wrong dates', () => {
    expect(ALERT.quarantinedBehind({ ...q, push: true }).fix).toBe(
      "set the terminal's clock right if it is not yet (its menu: System > Date/Time; its next punches go in at once); then check them (punchgate punches --state quarantined --terminal lobby): punchgate punches release --terminal lobby sends them with the dates it recorded (correct them in the HRMS), or leave them quarantined",
    );
  });

  // A trial: a serial clock's punches a week old were held, and the fix said "syncClock: true for
  // clock-1 sets it at each poll": a serial terminal's config refuses that key (exit 78).
  it('names syncClock only for a kind that has it; another is set on the terminal itself', () => {
    const serial = ALERT.quarantinedBehind({ ...q, terminal: 'clock-1', push: false, syncClock: false });
    expect(serial.fix).not.toContain('syncClock');
    expect(serial.fix).toContain(
      'on the terminal itself (its menu or keypad): punchgate cannot set this kind of clock',
    );
    expect(ALERT.quarantinedBehind({ ...q, push: false, syncClock: true }).fix).toContain(
      'syncClock: true for lobby sets it at each poll',
    );
    const future = { ...q, to: q.from, offsetSeconds: 7196, push: false };
    expect(ALERT.quarantinedFuture({ ...future, syncClock: false }).fix).not.toContain('syncClock');
    expect(ALERT.quarantinedFuture({ ...future, syncClock: true }).fix).toContain('(or syncClock: true)');
  });
});

/**
 * Found by a new site admin's first day: a ZK terminal showing the right time, its zone in the
 * config mistyped as Asia/Kolkata. The alert's first advice was `syncClock: true`, which sets the
 * terminal's clock to the config's zone: every punch after it 5 h 30 min off. Off by whole hours
 * (or half hours), the zone is looked at first, and syncClock is said to follow the config's zone.
 */
describe('a terminal clock off by whole hours', () => {
  const t = (skewSeconds: number) => ({ name: 'gate-1', skewSeconds }) as Parameters<typeof ALERT.clockSkew>[0];

  it('names the zone in the config first, and what syncClock would do with a wrong one', () => {
    for (const skew of [-19_800, 7_200]) {
      expect(ALERT.clockSkew(t(skew), false).fix).toBe(
        "look at the terminal's own display first: if it shows the right local time, the config's zone is wrong: set timezone for gate-1 in the config to the zone it runs in (syncClock: true would set the terminal to the wrong zone's time); " +
          'if its time is wrong, set syncClock: true for gate-1 so that punchgate sets its clock at each poll, or set it by hand',
      );
    }
  });

  it('a clock that drifted (not whole hours) keeps the advice to set it', () => {
    expect(ALERT.clockSkew(t(-600), false).fix).toBe(
      'set syncClock: true for gate-1 so that punchgate sets its clock at each poll, or set it by hand; if it shows the right time for another zone, set timezone for gate-1 in the config to the zone it runs in',
    );
  });
});
