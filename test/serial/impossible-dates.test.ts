import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLineParser } from '../../src/sources/serial/index.js';
import { cliSandbox } from '../helpers/cli.js';
import { serialConfig } from './helpers.js';

/**
 * A clock line or an export line whose date cannot exist (31/11, 29/02 of a year that is not a
 * leap year, hour 24) is said to be an impossible date, so that the admin looks at the terminal's
 * clock, not at the pattern that reads its lines well.
 */
const clock = (over: Record<string, unknown> = {}) =>
  createLineParser(serialConfig({ path: '/dev/null', ...over }), { now: () => 0 });

describe('impossible dates from a terminal', () => {
  let box: ReturnType<typeof cliSandbox> | undefined;
  afterEach(() => box?.tmp.cleanup());

  it('serial clock lines: said as an impossible date with the text, by the default and a strict pattern', () => {
    const iso = clock();
    expect(iso('1042,2026-11-31 08:00:00')).toEqual({
      kind: 'malformed',
      reason:
        'impossible date "2026-11-31 08:00:00": there is no day 31 in November (it has 30 days): check the terminal\'s date and time',
    });
    const dmy = clock({ timeFormat: 'DD/MM/YYYY HH:mm' });
    expect(dmy('1043,29/02/2027 08:00')).toMatchObject({
      reason: expect.stringMatching(/^impossible date "29\/02\/2027 08:00": there is no 29 February in 2027/),
    });
    expect(dmy('1044,30/11/2026 24:00')).toMatchObject({
      reason: expect.stringMatching(/^impossible date "30\/11\/2026 24:00": there is no hour 24/),
    });
    // A pattern that checks the hour's digits makes "24" a mismatch: still said as the date.
    const strict = clock({
      pattern: '^(?<code>\\d+) (?<time>\\d\\d/\\d\\d/\\d\\d [01]\\d:[0-5]\\d|2[0-3]:[0-5]\\d)$',
      timeFormat: 'DD/MM/YY HH:mm',
    });
    expect(strict('1045 30/11/26 24:10')).toMatchObject({
      reason: expect.stringMatching(/^impossible date "30\/11\/26 24:10": there is no hour 24/),
    });
    expect(strict('garbage')).toEqual({ kind: 'malformed', reason: 'does not match the pattern' });
    expect(dmy('1046,30/11/2026 23:59')).toMatchObject({ kind: 'punch', logTime: '2026-11-30 23:59:00' });
  });

  it('export lines: the line number, the text and "impossible", the good lines imported', async () => {
    box = cliSandbox();
    const t = (d: string) => `1\t${d}\t1\t0\t1\t0\r\n`;
    writeFileSync(
      box.tmp.path('x_attlog.dat'),
      t('2026-11-30 08:00:00') + t('2026-11-31 08:00:00') + t('2026-02-29 08:00:00') + t('2026-11-30 24:00:00'),
    );
    const r = await box.cli('import', '--terminal', 'import', box.tmp.path('x_attlog.dat'));
    expect(r.status).toBe(65);
    expect(r.stdout).toContain('x_attlog.dat: 1 new, 0 duplicates, 3 bad');
    const file = box.tmp.path('x_attlog.dat');
    expect(r.stderr.trim().split('\n')).toEqual([
      `${file}:2: impossible date-time "2026-11-31 08:00:00": there is no day 31 in November (it has 30 days): check the terminal's date and time`,
      `${file}:3: impossible date-time "2026-02-29 08:00:00": there is no 29 February in 2026 (not a leap year): check the terminal's date and time`,
      `${file}:4: impossible date-time "2026-11-30 24:00:00": there is no hour 24 (hours are 00 to 23): check the terminal's date and time`,
    ]);
  });
});
