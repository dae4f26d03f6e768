import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { formatStatus } from '../../src/status/format.js';
import { statusJson } from '../../src/status/json.js';
import type { HourlySeries } from '../../src/journal/hourly-stats.js';
import { buildStatus } from '../../src/status/report.js';
import { renderPage } from '../../src/web/page.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A terminal taken out of the config during an HRMS outage (a long-life trial): its 6 punches
 * waited, then went, but the status and the page listed only the configured terminals and said
 * nothing of it while they waited. They say it now, and that its punches are still delivered.
 */
describe('a terminal taken out of the config with punches not delivered', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });
  const config = () =>
    parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nhrms:\n  baseUrl: https://hr.example.com\n` +
        `terminals:\n  - name: gate-1\n    kind: zk\n    host: 127.0.0.1\n`,
      tmp.path('p.yaml'),
      tmp.path(''),
    );
  const punch = (terminal: string, i: number) => ({
    terminal,
    biometricCode: String(100 + i),
    logTime: `2026-11-22 08:${String(i).padStart(2, '0')}:00`,
  });

  it('says its punches not delivered by state, in the status text, status.json and the page', () => {
    j.ingest([0, 1, 2].map((i) => punch('gate-1', i)));
    j.ingest([3, 4, 5, 6, 7, 8].map((i) => punch('lobby-old', i)));
    // One of them refused for now by the HRMS.
    const claimed = j.claim(100).filter((p) => p.terminal === 'lobby-old');
    j.settle([{ id: claimed[0]!.id, kind: 'rejected', message: 'Employee not found' }]);
    j.settle(claimed.slice(1).map((p) => ({ id: p.id, kind: 'unknown' as const })));
    const r = buildStatus(j, config(), clock.now(), { freeBytes: 1e12 });
    expect(r.terminals.map((t) => t.name)).toEqual(['gate-1']);
    expect(r.removedTerminals).toEqual([
      { name: 'lobby-old', pending: 5, inflight: 0, rejected: 1, dead: 0, quarantined: 0 },
    ]);
    const words =
      'lobby-old: not in the config, and 6 of its punches are not delivered yet (pending 5, rejected 1): they are delivered as any other terminal';
    expect(formatStatus(r)).toContain(words);
    expect(renderPage(r, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 })).toContain(
      words.replace("terminal's", 'terminal&#39;s'),
    );
  });

  // A new-user trial imported a CSV without --terminal: its one punch waited under "import", said as
  // "not in the config, and 1 of its punch is not delivered yet ... nothing is lost by taking it out".
  it('says punches imported apart as imported, never as a terminal taken out; one punch in the singular', () => {
    j.ingest([punch('import', 1)]);
    j.ingest([punch('lobby-old', 2)]);
    const text = formatStatus(buildStatus(j, config(), clock.now(), { freeBytes: 1e12 }));
    expect(text).toContain(
      "import: 1 punch imported apart from every terminal (punchgate import without --terminal, counted in no terminal's row), 0 delivered, 1 not delivered yet (pending 1): they are delivered as any terminal's (to every sink)",
    );
    expect(text).not.toContain('import: not in the config');
    expect(text).toContain('lobby-old: not in the config, and 1 of its punches is not delivered yet (pending 1)');
  });

  // A new-user trial: 5 punches imported apart and delivered were in no row of the page nor of
  // punchgate status: the page's terminals listed 76 punches in 24 h against 81 delivered.
  it('counts punches imported apart once delivered too: the text, status.json and a row of the page, so the sums add up', () => {
    j.ingest([0, 1, 2].map((i) => punch('gate-1', i)));
    j.ingest([3, 4].map((i) => punch('import', i)));
    j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    j.ingest([punch('import', 5)]);
    const r = buildStatus(j, config(), clock.now(), { freeBytes: 1e12 });
    expect(r.removedTerminals).toBeUndefined();
    expect(JSON.parse(statusJson(r)).importedApart).toEqual({
      name: 'import',
      journaled: 3,
      delivered: 2,
      pending: 1,
      inflight: 0,
      rejected: 0,
      dead: 0,
      quarantined: 0,
    });
    expect(formatStatus(r)).toContain(
      "  import: 3 punches imported apart from every terminal (punchgate import without --terminal, counted in no terminal's row), 2 delivered, 1 not delivered yet (pending 1)",
    );
    j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const done = buildStatus(j, config(), clock.now(), { freeBytes: 1e12 });
    expect(formatStatus(done)).toMatch(/\n {2}import: 3 punches imported apart .*, 3 delivered\n/);
    const hour = Date.parse('2026-11-22T11:00:00Z');
    const charts: HourlySeries = {
      countedAt: clock.now(),
      hours: [hour],
      punchesByTerminal: new Map([
        ['gate-1', [3]],
        ['import', [3]],
      ]),
      queueMax: [0],
      delivered: [6],
      refused: [0],
      failedRequests: [0],
    };
    const page = renderPage(done, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 }, charts);
    const row = /<tr class="imported-apart">[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(row).toContain('3 punches imported apart from every terminal');
    expect(row).toContain('import: 3 punches journalled in the last 24 h');
    expect(page).toContain('gate-1: 3 punches journalled in the last 24 h');
  });

  it('says nothing once they are all delivered, nor of a terminal in the config', () => {
    j.ingest([0, 1].map((i) => punch('gate-1', i)));
    j.ingest([3].map((i) => punch('lobby-old', i)));
    j.settle(j.claim(100).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const r = buildStatus(j, config(), clock.now(), { freeBytes: 1e12 });
    expect(r.removedTerminals).toBeUndefined();
    expect(formatStatus(r)).not.toContain('lobby-old');
  });
});
