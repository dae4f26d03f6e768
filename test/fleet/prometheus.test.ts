/**
 * Metrics out, not in (issue 34): a box's Prometheus in agent mode (Debian's prometheus, the
 * example contrib/prometheus/agent.yml) scrapes `punchgate run`'s /metrics on loopback with the
 * status token and remote-writes to a central Prometheus (the example central.yml, remote-write
 * receiver on, the alert rules loaded) with the box's `site` label; the central one answers
 * queries for the box's punchgate_ series with that label. Two boxes of two sites send to it, each
 * through its own agent: each site's series stay apart (one row per site in the fleet table). Every expression of both Grafana
 * dashboards is read against this real daemon's /metrics and run on the central Prometheus.
 * The central side's size per box (series, samples per second) is measured here with 5
 * terminals, and printed (docs/fleet.md).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import { punchTimes, spawnDaemon, startStack, statusUrl, type DaemonProcess } from '../daemon/stack.js';
import { problemsIn } from '../helpers/promql.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';

const SITE = 'plant-t';
/** A second box, of another site, sending to the same central Prometheus. */
const OTHER_SITE = 'plant-u';
const OTHER_TERMINALS = 2;
const METRICS_TOKEN = 'fleet-metrics-token-9c2d';
const TERMINALS = 5;
const SCRAPE_SECONDS = 1;

/** A failed wait, with the end of what the program said. */
const withOutput = (output: () => string) => (e: unknown) => {
  throw new Error(`${e instanceof Error ? e.message : String(e)}:\n${output().slice(-3000)}`);
};

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('a Prometheus agent on the box sends punchgate metrics to a central Prometheus', () => {
  const cleanups: (() => unknown)[] = [];
  let daemon: DaemonProcess;
  let exposition: string;
  let central: string;
  const figures: Record<string, string> = {};

  const prometheus = (args: string[], name: string) => {
    const child: ChildProcess = spawn('prometheus', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => (out += `${name}: ${e.message} (Debian: apt-get install prometheus)\n`));
    cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
    return { child, output: () => out };
  };
  const query = async (q: string): Promise<{ status: string; data: { result: Sample[] }; error?: string }> => {
    const res = await fetch(`${central}/api/v1/query?query=${encodeURIComponent(q)}`);
    return (await res.json()) as { status: string; data: { result: Sample[] }; error?: string };
  };

  /**
   * One box: a daemon with its terminals (/metrics beyond a token, as on a box whose agent scrapes
   * it: status.authTokenFile) and its Prometheus agent, the example agent.yml with this box's
   * site, target, token and the central URL. Returns the daemon's status URL.
   */
  const startBox = async (site: string, terminals: number, agentPort: number) => {
    const box = await startStack({ terminals });
    cleanups.push(() => box.stop());
    const nextTime = punchTimes('2026-11-22', 11);
    box.terminals.forEach((t, i) => {
      for (let n = 0; n < 4; n++) t.addPunch({ userId: String(1000 + i), logTime: nextTime() });
    });
    writeFileSync(box.tmp.path('metrics-token'), `${METRICS_TOKEN}\n`);
    box.writeConfig(undefined, (c) => {
      (c.status as Record<string, unknown>).authTokenFile = box.tmp.path('metrics-token');
    });
    const d = spawnDaemon(box.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    await waitFor(() => box.hrms.attendance().length === terminals * 4, 30_000, `the punches of ${site} delivered`);
    // A healthy box: its terminals up. A terminal's record says it answered once its poll has ended,
    // a little after its punches are journalled and delivered (the poll waits for the disk sync); a
    // first scrape before that would make PunchgateTerminalDown pending at the central Prometheus.
    const up = async () =>
      parseMetrics(
        await (await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
      );
    await waitFor(
      async () => {
        const m = await up();
        return box.terminals.every((_, i) => m.get(`punchgate_terminal_up{terminal="gate-${i + 1}"}`) === 1);
      },
      10_000,
      `the terminals of ${site} up once their first poll ended`,
    );
    const target = new URL(url).host;

    const agentConfig = readFileSync('contrib/prometheus/agent.yml', 'utf8')
      .replaceAll('plant-a', site)
      .replace("'127.0.0.1:9330'", `'${target}'`)
      .replace('/etc/prometheus/punchgate-token', box.tmp.path('metrics-token'))
      .replace('https://prometheus.example.com/api/v1/write', `${central}/api/v1/write`)
      .replace(/scrape_interval: \d+s/, `scrape_interval: ${SCRAPE_SECONDS}s`)
      .replace(/batch_send_deadline: \d+s/, 'batch_send_deadline: 1s');
    const agentDoc = parse(agentConfig) as { remote_write: { basic_auth?: unknown; authorization?: unknown }[] };
    // The central side here asks for no credentials (the example's are for the real one).
    for (const w of agentDoc.remote_write) {
      delete w.basic_auth;
      delete w.authorization;
    }
    writeFileSync(box.tmp.path('agent.yml'), stringify(agentDoc));
    // The agent's config as promtool reads it (--agent: no rules, no alerting).
    const check = spawnSync('promtool', ['check', 'config', '--agent', box.tmp.path('agent.yml')], {
      encoding: 'utf8',
    });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    mkdirSync(box.tmp.path('agent-data'));
    const a = prometheus(
      [
        '--enable-feature=agent',
        `--config.file=${box.tmp.path('agent.yml')}`,
        `--storage.agent.path=${box.tmp.path('agent-data')}`,
        `--web.listen-address=127.0.0.1:${agentPort}`,
      ],
      `agent of ${site}`,
    );
    await waitFor(
      async () => (await query(`punchgate_build_info{site="${site}"}`)).data.result.length > 0,
      60_000,
      `the series of ${site} at the central Prometheus`,
    ).catch(withOutput(a.output));
    return { daemon: d, url };
  };

  beforeAll(async () => {
    // The central Prometheus: the example config, with the rules, on loopback.
    const centralPort = await freePort();
    central = `http://127.0.0.1:${centralPort}`;
    const centralConfig = parse(readFileSync('contrib/prometheus/central.yml', 'utf8')) as {
      global: Record<string, unknown>;
      rule_files: string[];
      alerting?: unknown;
    };
    centralConfig.global.evaluation_interval = '1s';
    delete centralConfig.alerting;
    centralConfig.rule_files = [join(process.cwd(), 'contrib/prometheus/alerts.yml')];
    const centralDir = tempDir('punchgate-central-');
    cleanups.push(() => centralDir.cleanup());
    writeFileSync(centralDir.path('central.yml'), stringify(centralConfig));
    const check = spawnSync('promtool', ['check', 'config', centralDir.path('central.yml')], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    const c = prometheus(
      [
        `--config.file=${centralDir.path('central.yml')}`,
        `--storage.tsdb.path=${centralDir.path('data')}`,
        `--web.listen-address=127.0.0.1:${centralPort}`,
        '--web.enable-remote-write-receiver',
      ],
      'central',
    );
    await waitFor(
      async () => {
        try {
          return (await fetch(`${central}/-/ready`)).status === 200;
        } catch {
          return false;
        }
      },
      30_000,
      'the central Prometheus to be ready',
    ).catch(withOutput(c.output));

    // Two boxes of two sites send to it, each through its own agent.
    ({ daemon } = await startBox(SITE, TERMINALS, await freePort()));
    await startBox(OTHER_SITE, OTHER_TERMINALS, await freePort());
    const res = await fetch(`${await statusUrl(daemon)}metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.status).toBe(200);
    exposition = await res.text();
  }, 240_000);

  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    if (Object.keys(figures).length > 0) {
      process.stdout.write(
        `fleet figures (docs/fleet.md):\n${Object.entries(figures)
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}\n`,
      );
    }
  });

  it("the central Prometheus has each box's punchgate_ series with its own site label, scraped with the token", async () => {
    const info = await query('punchgate_build_info');
    expect(info.status).toBe('success');
    expect(info.data.result.map((s) => s.metric).sort((a, b) => a.site!.localeCompare(b.site!))).toEqual(
      [SITE, OTHER_SITE].map((site) =>
        expect.objectContaining({
          __name__: 'punchgate_build_info',
          site,
          job: 'punchgate',
          instance: `${site}.example.org`,
        }),
      ),
    );
    const up = await query(`up{job="punchgate"}`);
    expect(up.data.result.map((s) => `${s.metric.site} ${s.value[1]}`).sort()).toEqual([
      `${SITE} 1`,
      `${OTHER_SITE} 1`,
    ]);
    // Each site's punches are its own: the two boxes' counters are not summed into one.
    const expected = `${SITE} ${TERMINALS * 4},${OTHER_SITE} ${OTHER_TERMINALS * 4}`;
    const delivered = async () =>
      (await query('sum by (site) (punchgate_punches_delivered_total)')).data.result
        .map((s) => `${s.metric.site} ${s.value[1]}`)
        .sort()
        .join(',');
    await waitFor(async () => (await delivered()) === expected, 30_000, 'the delivered counts per site');
    expect(await delivered()).toBe(expected);
    const terminals = await query(`punchgate_terminal_up{site="${SITE}"}`);
    expect(terminals.data.result.map((s) => s.metric.terminal).sort()).toEqual(
      Array.from({ length: TERMINALS }, (_, i) => `gate-${i + 1}`),
    );
  });

  it('without the token the scrape is refused: /metrics needs it (status.authTokenFile)', async () => {
    const url = await statusUrl(daemon);
    expect((await fetch(`${url}metrics`)).status).toBe(401);
  });

  it('a healthy box fires no alert at the central Prometheus (PunchgateDeliveryFailing included)', async () => {
    // The rules were evaluated on the box's series (every second): each healthy, none pending or firing.
    interface Rule {
      name: string;
      health: string;
      state: string;
      lastError?: string;
      lastEvaluation: string;
    }
    const rules = async () =>
      (
        (await (await fetch(`${central}/api/v1/rules?type=alert`)).json()) as {
          data: { groups: { rules: Rule[] }[] };
        }
      ).data.groups.flatMap((g) => g.rules);
    await waitFor(
      async () => (await rules()).every((r) => !r.lastEvaluation.startsWith('0001-')),
      30_000,
      'every rule evaluated',
    );
    const evaluated = await rules();
    expect(evaluated.length).toBeGreaterThanOrEqual(16);
    expect(evaluated.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    expect(evaluated.filter((r) => r.state !== 'inactive').map((r) => `${r.name}: ${r.state}`)).toEqual([]);
    expect(exposition).not.toMatch(/^punchgate_delivery_failing_since_timestamp_seconds /m);
    const alerts = await query('ALERTS');
    expect(alerts.data.result.map((s) => `${s.metric.site}: ${s.metric.alertname}`)).toEqual([]);
  });

  it('every expression of both dashboards reads metrics this daemon serves, and runs on the central Prometheus', async () => {
    for (const file of ['contrib/grafana/punchgate.json', 'contrib/grafana/punchgate-fleet.json']) {
      const dash = JSON.parse(readFileSync(file, 'utf8')) as {
        panels: { title: string; targets: { expr: string }[] }[];
      };
      for (const p of dash.panels) {
        for (const t of p.targets) {
          expect(problemsIn(t.expr, exposition), `${file}: ${p.title}`).toEqual([]);
          const q = t.expr
            .replaceAll('$__rate_interval', '1m')
            .replaceAll('$__range', '1h')
            .replaceAll('$instance', '.+')
            .replaceAll('$site', '.+');
          const r = await query(q);
          expect(r.status, `${file}: ${p.title}: ${q}: ${r.error ?? ''}`).toBe('success');
        }
      }
    }
    // The fleet table's rows: one per site, with its terminals.
    const rows = await query(`count by (site) (punchgate_terminal_up{site=~".+"})`);
    expect(rows.data.result.map((r) => `${r.metric.site} ${r.value[1]}`).sort()).toEqual([
      `${SITE} ${TERMINALS}`,
      `${OTHER_SITE} ${OTHER_TERMINALS}`,
    ]);
  });

  it(`the size of the central side per box with ${TERMINALS} terminals: series and samples per second`, async () => {
    const series = exposition.split('\n').filter((l) => l && !l.startsWith('#')).length;
    const punchgateSeries = exposition.split('\n').filter((l) => l.startsWith('punchgate_')).length;
    // At the central Prometheus: what the agent sent for this site, once its scrapes caught up with
    // this exposition (the box's series plus the agent's own per scrape: up, scrape_duration_seconds...).
    const count = async (selector: string) => Number((await query(`count(${selector})`)).data.result[0]?.value[1] ?? 0);
    await waitFor(
      async () => (await count(`{site="${SITE}", __name__=~"punchgate_.*"}`)) === punchgateSeries,
      20_000,
      'the punchgate_ series at the central Prometheus',
    );
    const central = await count(`{site="${SITE}"}`);
    expect(central).toBeGreaterThan(punchgateSeries + 5);
    figures[`series on /metrics (${TERMINALS} terminals)`] = `${series} (${punchgateSeries} punchgate_)`;
    figures['series per box at the central Prometheus'] = String(central);
    figures['samples per second per box at a 30 s scrape'] = (central / 30).toFixed(1);
    expect(punchgateSeries).toBeGreaterThan(TERMINALS * 3);
  });
});
