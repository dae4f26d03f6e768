import { describe, expect, it } from 'vitest';
import {
  compileLinePattern,
  compileTimeFormat,
  createLineParser,
  DEFAULT_SERIAL_PATTERN,
  type ParsedLine,
} from '../../src/sources/serial/index.js';
import { serialConfig } from './helpers.js';

const parseTime = (fmt: string, text: string) => {
  const c = compileTimeFormat(fmt);
  if (!c.format) throw new Error(c.problems.join('; '));
  return c.format.parse(text);
};

describe('timeFormat', () => {
  it('reads the common layouts into YYYY-MM-DD HH:mm:ss without any zone change', () => {
    expect(parseTime('YYYY-MM-DD HH:mm:ss', '2026-11-22 08:00:01')).toBe('2026-11-22 08:00:01');
    expect(parseTime('DD/MM/YY HH:mm', '22/11/26 08:05')).toBe('2026-11-22 08:05:00');
    expect(parseTime('D.M.YYYY H:mm:ss', '2.3.2026 7:04:09')).toBe('2026-03-02 07:04:09');
    expect(parseTime('MM/DD/YYYY hh:mm:ss A', '11/22/2026 12:30:00 AM')).toBe('2026-11-22 00:30:00');
    expect(parseTime('MM/DD/YYYY hh:mm:ss A', '11/22/2026 01:30:00 pm')).toBe('2026-11-22 13:30:00');
    expect(parseTime('YYYYMMDDHHmmss', '20261122080001')).toBe('2026-11-22 08:00:01');
    expect(parseTime('YYYY-MM-DDTHH:mm:ss', '2026-11-22T08:00:01')).toBe('2026-11-22 08:00:01');
    // Terminals pad with blanks: one space in the format matches several.
    expect(parseTime('DD/MM/YY H:mm', '22/11/26  8:05')).toBe('2026-11-22 08:05:00');
  });

  it('refuses times that are no real calendar time', () => {
    expect(parseTime('YYYY-MM-DD HH:mm:ss', '2026-02-30 08:00:00')).toBeNull();
    expect(parseTime('YYYY-MM-DD HH:mm:ss', '2026-11-22 24:00:00')).toBeNull();
    expect(parseTime('MM/DD/YYYY hh:mm A', '11/22/2026 13:00 PM')).toBeNull();
    expect(parseTime('YYYY-MM-DD HH:mm:ss', '2026-11-22 08:00')).toBeNull();
  });

  it('names what is wrong with a format', () => {
    expect(compileTimeFormat('YYYY-MM-DD HH:mm:ss').problems).toEqual([]);
    expect(compileTimeFormat('YYYY-MM-DD').problems).toEqual(['needs an hour (HH, H, hh or h)', 'needs minutes (mm)']);
    expect(compileTimeFormat('YYYY-MM-DD HH:m').problems.join()).toMatch(/unknown token "m"/);
    expect(compileTimeFormat('YYYY-MM-DD hh:mm').problems.join()).toMatch(/needs A/);
    expect(compileTimeFormat('YYYY-MM-DD HH:mm YY').problems.join()).toMatch(/repeats/);
  });
});

describe('line pattern and parser', () => {
  it('checks the named groups code and time', () => {
    expect(compileLinePattern(DEFAULT_SERIAL_PATTERN).problems).toEqual([]);
    expect(compileLinePattern('^(?<code>\\d+)').problems).toEqual(['needs a named group "time", written (?<time>...)']);
    expect(compileLinePattern('^(?<code>\\d+').problems[0]).toMatch(/not a valid regular expression/);
  });

  it('regex format: reads the code and the time, strips framing, rejects what does not fit', () => {
    const cfg = serialConfig({
      path: '/dev/null',
      pattern: '^U(?<code>\\d+) +(?<time>\\d\\d/\\d\\d/\\d\\d \\d\\d:\\d\\d) +[IO]$',
      timeFormat: 'DD/MM/YY HH:mm',
    });
    const parse = createLineParser(cfg, { now: () => 0 });
    expect(parse('\u0002U1042  22/11/26 08:00 I\u0003')).toEqual({
      kind: 'punch',
      code: '1042',
      logTime: '2026-11-22 08:00:00',
    });
    expect(parse('   ')).toEqual({ kind: 'blank' });
    expect(parse('\u0000\u0001')).toMatchObject({ kind: 'malformed' });
    // A date that cannot exist is said as such: the clock is wrong, not the pattern.
    expect(parse('U1042 31/02/26 08:00 I')).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(/^impossible date "31\/02\/26 08:00": there is no day 31 in February/),
    });
    expect(parse('hello')).toMatchObject({ kind: 'malformed', reason: 'does not match the pattern' });
  });

  it('regex format without a pattern reads the time the timeFormat describes (found by a capture trial: a day-first clock with only timeFormat set lost every line as "does not match the pattern")', () => {
    // A clock that prints CODE,DD/MM/YYYY HH:mm:ss (the default pattern's comma layout, day first).
    const parse = createLineParser(serialConfig({ path: '/dev/null', timeFormat: 'DD/MM/YYYY HH:mm:ss' }), {
      now: () => 0,
    });
    expect(parse('1044,22/11/2026 08:00:00\r')).toEqual({
      kind: 'punch',
      code: '1044',
      logTime: '2026-11-22 08:00:00',
    });
    expect(parse('1045, 03/04/2026 17:30:05')).toEqual({ kind: 'punch', code: '1045', logTime: '2026-04-03 17:30:05' });
    // A time that is not the format's is still no punch; one that cannot exist is said so.
    expect(parse('1046,2026-11-22 08:00:00')).toMatchObject({ kind: 'malformed' });
    expect(parse('1046,31/02/2026 08:00:00')).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(/^impossible date "31\/02\/2026 08:00:00"/),
    });
    // The default timeFormat reads the documented default layout as before.
    const iso = createLineParser(serialConfig({ path: '/dev/null' }), { now: () => 0 });
    expect(iso('1042,2026-11-22 08:00:01')).toEqual({ kind: 'punch', code: '1042', logTime: '2026-11-22 08:00:01' });
    expect(iso('1042,22/11/2026 08:00:01')).toMatchObject({ kind: 'malformed' });
  });

  it('card format: a card number stamped with the box clock in the terminal zone', () => {
    const at = Date.UTC(2026, 10, 22, 23, 30, 0);
    const parse = createLineParser(serialConfig({ path: '/dev/null', format: 'card', timezone: 'Asia/Tokyo' }), {
      now: () => at,
    });
    expect(parse('0004521234\r')).toEqual<ParsedLine>({
      kind: 'punch',
      code: '0004521234',
      logTime: '2026-11-23 08:30:00',
    });
    expect(parse('12 34')).toMatchObject({ kind: 'malformed' });
    expect(parse('~\u00ff')).toMatchObject({ kind: 'malformed' });
  });
});
