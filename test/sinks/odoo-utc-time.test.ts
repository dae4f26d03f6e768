import { describe, expect, it } from 'vitest';
import { odooException } from '../../src/sinks/odoo/failure.js';
import { pairStep } from '../../src/sinks/odoo/pairing.js';
import { wallClockToUtc } from '../../src/punch/wall-clock-utc.js';

describe('wallClockToUtc', () => {
  it.each([
    // Ordinary times, either side of the changes.
    ['2026-07-01 08:00:00', 'Europe/Berlin', '2026-07-01 06:00:00'],
    ['2026-01-15 08:00:00', 'Europe/Berlin', '2026-01-15 07:00:00'],
    ['2026-03-29 01:59:59', 'Europe/Berlin', '2026-03-29 00:59:59'],
    ['2026-03-29 03:00:00', 'Europe/Berlin', '2026-03-29 01:00:00'],
    // Spring forward: 02:00-02:59 does not exist; read with the offset before the change.
    ['2026-03-29 02:00:00', 'Europe/Berlin', '2026-03-29 01:00:00'],
    ['2026-03-29 02:30:00', 'Europe/Berlin', '2026-03-29 01:30:00'],
    ['2026-03-08 02:30:00', 'America/New_York', '2026-03-08 07:30:00'],
    // Fall back: 02:00-02:59 happens twice; the first occurrence (summer time).
    ['2026-10-25 02:00:00', 'Europe/Berlin', '2026-10-25 00:00:00'],
    ['2026-10-25 02:30:00', 'Europe/Berlin', '2026-10-25 00:30:00'],
    ['2026-10-25 03:00:00', 'Europe/Berlin', '2026-10-25 02:00:00'],
    ['2026-10-25 01:59:59', 'Europe/Berlin', '2026-10-24 23:59:59'],
    ['2026-11-01 01:30:00', 'America/New_York', '2026-11-01 05:30:00'],
    // Half-hour zones, and Lord Howe's half-hour change (+11 -> +10:30 at 02:00 on 5 April 2026,
    // +10:30 -> +11 at 02:00 on 4 October 2026).
    ['2026-07-01 09:00:00', 'Asia/Kolkata', '2026-07-01 03:30:00'],
    ['2026-07-01 09:00:00', 'America/St_Johns', '2026-07-01 11:30:00'],
    ['2026-04-05 01:45:00', 'Australia/Lord_Howe', '2026-04-04 14:45:00'],
    ['2026-10-04 02:15:00', 'Australia/Lord_Howe', '2026-10-03 15:45:00'],
    ['2026-12-31 23:59:59', 'UTC', '2026-12-31 23:59:59'],
  ])('%s in %s is %s UTC', (wall, zone, utc) => {
    expect(wallClockToUtc(wall, zone)).toBe(utc);
  });

  it('refuses a text that is not a log time', () => {
    expect(() => wallClockToUtc('2026-07-01T08:00:00', 'UTC')).toThrow(/not a log time/);
  });
});

describe('odooException', () => {
  it.each([
    ['werkzeug.exceptions.Unauthorized', 401, 'auth'],
    ['odoo.exceptions.AccessDenied', undefined, 'auth'],
    ['odoo.exceptions.AccessError', 403, 'auth'],
    ['odoo.exceptions.ValidationError', 422, 'refused'],
    ['odoo.exceptions.UserError', 422, 'refused'],
    ['psycopg2.errors.SerializationFailure', 500, 'unknown'],
    ['odoo.exceptions.MissingError', 404, 'unknown'],
    ['werkzeug.exceptions.NotFound', 404, 'request-failed'],
    ['werkzeug.exceptions.UnprocessableEntity', 422, 'request-failed'],
    ['builtins.KeyError', 500, 'unknown'],
  ] as const)('%s (HTTP %s) is %s', (name, status, kind) => {
    expect(odooException(name, 'm', status).kind).toBe(kind);
  });
});

describe('pairStep', () => {
  const L = 16 * 3600_000;
  const open = { id: 1, checkIn: '2026-07-01 06:00:00', checkOut: null };
  it('finds the punch already written, as a check-in or a check-out', () => {
    expect(pairStep([open], '2026-07-01 06:00:00', 'out', L)).toEqual({ kind: 'already', id: 1, as: 'check-in' });
    const closed = { id: 2, checkIn: '2026-07-01 06:00:00', checkOut: '2026-07-01 15:00:00' };
    expect(pairStep([closed], '2026-07-01 15:00:00', undefined, L)).toEqual({
      kind: 'already',
      id: 2,
      as: 'check-out',
    });
  });
  it('alternates within the longest shift, opens after it', () => {
    expect(pairStep([open], '2026-07-01 22:00:00', undefined, L)).toEqual({ kind: 'close', id: 1 });
    expect(pairStep([open], '2026-07-01 22:00:01', undefined, L)).toEqual({ kind: 'open' });
  });
  it('a check-out never closes a record left open longer than the longest shift: refused, saying why', () => {
    expect(pairStep([open], '2026-07-01 22:00:00', 'out', L)).toEqual({ kind: 'close', id: 1 });
    const late = pairStep([open], '2026-07-03 17:00:00', 'out', L);
    expect(late.kind).toBe('refuse');
    expect(late.kind === 'refuse' && late.message).toMatch(
      /open attendance in Odoo began at 2026-07-01 06:00:00 UTC, more than longestShiftHours \(16\) earlier \(a forgotten check-out\).*punches retry/,
    );
  });
  it('never closes an open record begun after the punch', () => {
    expect(pairStep([open], '2026-07-01 05:00:00', 'out', L).kind).toBe('refuse');
    expect(pairStep([open], '2026-07-01 05:00:00', undefined, L).kind).toBe('open');
  });
});
