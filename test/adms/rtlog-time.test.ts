import { describe, expect, it } from 'vitest';
import { parseRtlog } from '../../src/sources/adms/rtlog.js';

/**
 * An rtlog time in ISO 8601's form (`T` between the date and the time, no zone) is the same wall
 * clock: found by an adversarial trial, it was quarantined as "a time that does not exist" while
 * `punchgate import` takes that form. With a zone it is another time, and stays unreadable.
 */
describe('rtlog times', () => {
  it('reads 2026-11-30T01:02:03 as 2026-11-30 01:02:03; a zone is not read as a wall clock', () => {
    const rows = parseRtlog(
      [
        'time=2026-11-30T01:02:03\tpin=7\tevent=0',
        'time=2026-11-30 01:02:04\tpin=7\tevent=0',
        'time=2026-11-30T01:02:05Z\tpin=7\tevent=0',
        'time=2026-11-30T01:02:06+08:00\tpin=7\tevent=0',
      ].join('\n'),
    ).rows;
    expect(rows.map((r) => [r.time, r.validTime])).toEqual([
      ['2026-11-30 01:02:03', true],
      ['2026-11-30 01:02:04', true],
      ['2026-11-30T01:02:05Z', false],
      ['2026-11-30T01:02:06+08:00', false],
    ]);
  });
});
