import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/index.js';
import { TerminalSeries } from '../../src/metrics/terminal-series.js';

/** The lines of one scrape's per-terminal families, without the kept-upload ones (no push terminal here). */
function scrape(series: TerminalSeries, journaled: ReadonlyMap<string, number>): string[] {
  const lines: string[] = [];
  const report = { terminals: [] } as unknown as StatusReport;
  series.write(lines, { report, terminals: [], journaled, delivered: new Map() });
  return lines.filter((l) => l.startsWith('punchgate_punches_journaled_total'));
}

describe('the per-terminal families, with their label text kept between scrapes (terminal-series.ts)', () => {
  it('show every name once, the same on the scrape after, past the number of names kept', () => {
    const series = new TerminalSeries();
    // More names than the cache keeps (10,000): it starts again and every line is still there.
    const journaled = new Map(Array.from({ length: 10_050 }, (_, i) => [`t-${i}`, i] as const));
    for (let round = 0; round < 2; round++) {
      const lines = scrape(series, journaled);
      expect(lines.length).toBe(10_050);
      expect(lines[0]).toBe('punchgate_punches_journaled_total{terminal="t-0"} 0');
      expect(lines[10_049]).toBe('punchgate_punches_journaled_total{terminal="t-10049"} 10049');
    }
  });

  it('add up a name the label cuts or escapes with a name that reads the same as it is, whichever came first', () => {
    const series = new TerminalSeries();
    // 'a\x07' shows as 'a\x07' written out, which is also a name of its own; then a second scrape
    // with the cache warm gives the same.
    const journaled = new Map([
      ['a\\x07', 2],
      ['a\x07', 3],
      ['gate "1"', 1],
    ]);
    for (let round = 0; round < 2; round++)
      expect(scrape(series, journaled)).toEqual([
        'punchgate_punches_journaled_total{terminal="a\\\\x07"} 5',
        'punchgate_punches_journaled_total{terminal="gate \\"1\\""} 1',
      ]);
  });
});
