import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { terminalsNotFor } from '../../src/config/sinks.js';
import { Journal } from '../../src/journal/index.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import { PunchgateMetrics } from '../../src/metrics/registry.js';
import { formatStatus } from '../../src/status/format.js';
import { LatestReport } from '../../src/status/latest.js';
import { buildStatus } from '../../src/status/report.js';
import { renderPage } from '../../src/web/page.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Several-HRMS trial: a terminal routed to erp only (`sinks: [erp]`) had its punches settled for
 * the first sink unsent, and the status said "delivered 115" for an HRMS that received 85. Every
 * figure of the first sink now says them apart: the text, --json, the page and /metrics.
 */
describe('status: punches never meant for the first sink are not counted as delivered to it', () => {
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

  it('says the first sink delivered what it received, and the routed-away punches apart', async () => {
    const config = parseConfigText(
      [
        'site: plant-a',
        'journal:',
        `  path: ${tmp.path('j.db')}`,
        'hrms:',
        '  baseUrl: https://hr.example.com',
        'sinks:',
        '  - name: erp',
        '    kind: hrms',
        '    baseUrl: https://erp.example.com',
        'terminals:',
        '  - name: gate-1',
        '    kind: zk',
        '    host: 10.0.0.1',
        '  - name: warehouse',
        '    kind: zk',
        '    host: 10.0.0.2',
        '    sinks: [erp]',
        '',
      ].join('\n'),
      tmp.path('p.yaml'),
      tmp.path(''),
    );
    j.useSinks({ defaultSink: 'hrms', others: ['erp'], defaultNotFor: terminalsNotFor(config, 'hrms') });
    const at = (i: number) =>
      `2026-11-22 ${String(8 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`;
    j.ingest([
      ...Array.from({ length: 85 }, (_, i) => ({ terminal: 'gate-1', biometricCode: String(i), logTime: at(i) })),
      ...Array.from({ length: 30 }, (_, i) => ({ terminal: 'warehouse', biometricCode: String(i), logTime: at(i) })),
    ]);
    const sent = j.claim(500);
    expect(sent).toHaveLength(85);
    j.settle(sent.map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const erp = j.sinkQueue('erp');
    erp.settle(erp.claim(500).map((p) => ({ id: p.id, kind: 'delivered' as const })));

    const r = buildStatus(j, config, clock.now(), { freeBytes: 1e12 });
    expect(r.punches).toMatchObject({ pending: 0, delivered: 85, notRouted: 30 });
    expect(r.sinks?.find((s) => s.name === 'hrms')?.punches).toMatchObject({ delivered: 85, notRouted: 30 });
    expect(r.sinks?.find((s) => s.name === 'erp')?.punches).toMatchObject({ delivered: 115, notRouted: 0 });
    // --json is the report as it is.
    expect(JSON.parse(JSON.stringify(r)).punches.notRouted).toBe(30);

    const text = formatStatus(r);
    expect(text).toContain(
      "  pending 0   in flight 0   delivered 85   not for this sink 30 (not sent: their terminal's sinks: leaves it out)\n",
    );
    expect(text).toMatch(/\n {2}hrms +hrms .* delivered 85 {3}not for this sink 30 .* rejected 0/);
    expect(text).toMatch(/\n {2}erp +hrms .* delivered 115 {2}rejected 0/);

    const page = renderPage(r, { version: '0', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 10 });
    expect(page).toContain('<dd id="delivered">85</dd>');
    expect(page).toMatch(/<dd id="not-routed">30<\/dd>/);
    expect(page).not.toContain('sink-erp-not-routed');

    const metrics = new PunchgateMetrics({
      journal: j,
      config: () => config,
      reports: new LatestReport(
        () => buildStatus(j, config, clock.now(), { freeBytes: 1e12 }),
        () => clock.now(),
      ),
      totals: new JournalTotals(j.queries),
      clock,
      version: 't',
    });
    const lines = (await metrics.text()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'punchgate_journal_punches{state="not_routed"} 30',
        'punchgate_sink_punches{sink="hrms",state="not_routed"} 30',
        'punchgate_sink_punches{sink="erp",state="not_routed"} 0',
        'punchgate_punches_delivered_total{terminal="gate-1"} 85',
        'punchgate_punches_delivered_total{terminal="warehouse"} 0',
      ]),
    );
  });
});
