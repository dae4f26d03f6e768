import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import { PunchgateMetrics } from '../../src/metrics/registry.js';
import { buildStatus } from '../../src/status/index.js';
import { LatestReport } from '../../src/status/latest.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A trial (Z3): Frappe refused 25 punches of unknown employees the seed HRMS took, and /metrics
 * said `punchgate_journal_punches{state="refused"} 0`: that family is the default sink's queue
 * only, so an alert on refused or waiting punches never saw a second sink's.
 */
describe('/metrics: each sink its own queue (punchgate_sink_punches)', () => {
  const tmp = tempDir();
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  let journal: Journal;
  let lines: string[];

  beforeAll(async () => {
    const config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: 'https://erp.example.com',
            apiKeyFile: 'erp.key',
            apiSecretFile: 'erp.secret',
          },
        ],
        terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
      },
      tmp.dir,
    );
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    journal.useSinks({ defaultSink: 'hrms', others: ['erp'] });
    journal.ingest(
      ['1', '2', '3', '4'].map((code, i) => ({
        terminal: 'gate-1',
        biometricCode: code,
        logTime: `2026-11-22 08:0${i}:00`,
      })),
    );
    // The seed HRMS takes all four; Frappe refuses one, takes one, and two wait for it.
    journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const erp = journal.sinkQueue('erp');
    const [refused, taken, ...back] = erp.claim(10);
    erp.settle([
      { id: refused!.id, kind: 'rejected', message: 'No Employee found' },
      { id: taken!.id, kind: 'delivered' },
    ]);
    erp.release(back.map((p) => p.id));
    const reports = new LatestReport(
      () => buildStatus(journal, config, clock.now(), { freeBytes: 1 }),
      () => clock.now(),
    );
    const metrics = new PunchgateMetrics({
      journal,
      config: () => config,
      reports,
      totals: new JournalTotals(journal.queries),
      clock,
      version: 't',
    });
    lines = (await metrics.text()).split('\n');
  });
  afterAll(() => {
    journal.close();
    tmp.cleanup();
  });

  it("says each sink's waiting, refused, dead and quarantined punches apart", () => {
    expect(lines).toEqual(
      expect.arrayContaining([
        'punchgate_sink_punches{sink="hrms",state="pending"} 0',
        'punchgate_sink_punches{sink="hrms",state="refused"} 0',
        'punchgate_sink_punches{sink="erp",state="pending"} 2',
        'punchgate_sink_punches{sink="erp",state="refused"} 1',
        'punchgate_sink_punches{sink="erp",state="dead"} 0',
        'punchgate_sink_punches{sink="erp",state="quarantined"} 0',
      ]),
    );
    // The default sink's family keeps its meaning (dashboards and fleet rules read it).
    expect(lines).toContain('punchgate_journal_punches{state="refused"} 0');
  });
});
