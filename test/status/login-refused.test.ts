import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import { PunchgateMetrics } from '../../src/metrics/registry.js';
import { startDahuaSim } from '../../src/sim/dahua/index.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { buildStatus, type StatusReport } from '../../src/status/index.js';
import { LatestReport } from '../../src/status/latest.js';
import { renderPage } from '../../src/web/page.js';
import { startSim, ZONE } from '../biotime/helpers.js';
import { cliSandbox } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A BioTime server and a Dahua terminal that both answer and refuse punchgate's password: the
 * status said `online` for the server and `OFFLINE` for the terminal, and `punchgate terminals`
 * the same. Neither is true (reached, nothing read): both rows say the one true thing.
 */
describe('a server and a terminal that refuse the password', () => {
  it('are both said as LOGIN REFUSED in the status, the terminals listing and status --json', async () => {
    const bio = await startSim(20);
    cleanups.push(() => bio.stop());
    const dahua = await startDahuaSim({});
    cleanups.push(() => dahua.stop());
    const s = cliSandbox({
      terminals: [
        {
          name: 'hq',
          kind: 'biotime',
          baseUrl: bio.url,
          username: 'admin',
          passwordFile: 'wrong.pass',
          timezone: ZONE,
          timeoutMs: 5000,
        },
        {
          name: 'front-door',
          kind: 'dahua',
          host: '127.0.0.1',
          port: dahua.port,
          passwordFile: 'wrong.pass',
          timezone: ZONE,
        },
      ],
    });
    cleanups.push(() => s.tmp.cleanup());
    writeFileSync(s.tmp.path('wrong.pass'), 'Not-the-passw0rd\n');

    const poll = await s.cli('poll');
    expect(poll.stdout + poll.stderr).toMatch(/hq: .*refuse/);
    expect(poll.stdout + poll.stderr).toMatch(/front-door: .*refuse/);

    const status = await s.cli('status');
    const row = (name: string) => status.stdout.split('\n').find((l) => l.startsWith(`  ${name} `)) ?? '';
    expect(row('hq')).toMatch(/^ {2}hq +LOGIN REFUSED {2}last poll /);
    expect(row('front-door')).toMatch(/^ {2}front-door +LOGIN REFUSED {2}last poll /);

    const terminals = await s.cli('terminals');
    const listed = (name: string) => terminals.stdout.split('\n').find((l) => l.startsWith(`${name} `)) ?? '';
    expect(listed('hq')).toMatch(/ login refused /);
    expect(listed('front-door')).toMatch(/ login refused /);
    expect(terminals.stdout).not.toContain('(offline)');

    const json = JSON.parse((await s.cli('status', '--json')).stdout) as StatusReport;
    expect(json.terminals.map((t) => [t.name, t.loginRefused])).toEqual([
      ['hq', true],
      ['front-door', true],
    ]);

    // The page (punchgate run's) says the same of both rows.
    const journal = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'readonly' });
    const config = loadConfig(s.config, checkTerminalConfig);
    const report = buildStatus(journal, config, Date.now(), { freeBytes: null });
    const page = renderPage(report, { version: '0', uptimeSeconds: 60, zone: 'UTC', refreshSeconds: 10 });
    expect(page.match(/<span class="offline">LOGIN REFUSED<\/span>/g)).toHaveLength(2);
    expect(page).not.toContain('>OFFLINE<');

    // And /metrics: punchgate_terminal_up read 1 for the server (its ledger said online) and 0 for
    // the terminal. Both are 0, as the rows say: nothing can be read from either (docs/operate.md).
    const clock = { now: () => Date.now() };
    const metrics = new PunchgateMetrics({
      journal,
      config: () => config,
      reports: new LatestReport(() => buildStatus(journal, config, clock.now(), { freeBytes: null }), clock.now),
      totals: new JournalTotals(journal.queries),
      clock,
      version: 't',
    });
    const up = (await metrics.text()).split('\n').filter((l) => l.startsWith('punchgate_terminal_up{'));
    journal.close();
    expect(up).toEqual(['punchgate_terminal_up{terminal="hq"} 0', 'punchgate_terminal_up{terminal="front-door"} 0']);
  }, 60_000);
});
