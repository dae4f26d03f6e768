import { describe, expect, it } from 'vitest';
import { cutLastLine } from '../../src/sources/adms/attlog.js';

/**
 * The shape of an ATTLOG body's last line when it has no line end (a Content-Length shorter than
 * the body cuts it there): cut when short of a whole record, whole otherwise.
 */
describe('cutLastLine', () => {
  const A = '7001\t2026-11-09 08:00:01\t0\t1\t0';
  it.each([
    ['ends with LF', `${A}\n7002\t2026-11-09 08:00:02\t0\t1\t0\n`],
    ['ends with CRLF', `${A}\r\n`],
    ['NUL padding after the line end', `${A}\n\u0000\u0000`],
    ['a single whole line of four fields, no line end', '7002\t2026-11-09 08:00:02\t0\t15'],
    ['a last line as long as the others, no line end', `${A}\n7002\t2026-11-09 08:00:02\t0\t1\t0`],
    ['minute-only firmware: every time without seconds', '7001\t2026-11-09 08:01\t0\t1\n7002\t2026-11-09 08:02\t0\t1'],
    ['spaced form, whole', '1001  2026-11-09 08:00:01  0  1\n1002  2026-11-09 08:00:02  0  1'],
    ['empty', ''],
  ])('%s: whole', (_, body) => {
    expect(cutLastLine(body)).toBeUndefined();
  });

  it.each([
    ['cut in the seconds', `${A}\n7002\t2026-11-09 08:00`, /no whole time/],
    ['cut in the date', `${A}\n7002\t2026-11-0`, /no whole time/],
    ['a single line cut after its time', '7002\t2026-11-09 08:00:02\t0', /2 fields|3 fields where a whole one has 4/],
    [
      'eSSL lines end with a TAB: the cut one has fewer fields',
      `${A}\t\t\t0\t0\t\n7002\t2026-11-09 08:00:02\t1\t1\t0\t\t\t0\t0`,
      /9 fields where a whole one has 10/,
    ],
    [
      'spaced form cut',
      '1001  2026-11-09 08:00:01  0  1\n1002  2026-11-09 08:00:02  0',
      /4 fields where a whole one has 5/,
    ],
  ])('%s: cut', (_, body, why) => {
    expect(cutLastLine(body)).toMatch(why);
  });

  it('quotes the cut line with its secrets left out', () => {
    const why = cutLastLine(`${A}\nPIN=7002\tPasswd=hunter22\tTime=2026-11-09 08:0`);
    expect(why).toMatch(/no whole time/);
    expect(why).not.toContain('hunter22');
  });
});
