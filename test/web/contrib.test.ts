import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { JournalTotals } from '../../src/metrics/journal-totals.js';
import { PunchgateMetrics } from '../../src/metrics/registry.js';
import { buildStatus, LatestReport, type LiveFacts } from '../../src/status/index.js';
import type { ListenerFact } from '../../src/util/listener-fact.js';
import { systemClock } from '../../src/util/clock.js';
import { tempDir } from '../helpers/tmp.js';
import { declaredMetrics } from './helpers.js';
import { problemsIn, selectors, TARGET_LABELS } from '../helpers/promql.js';

describe('contrib: alert rules and dashboard use only what /metrics serves', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  let exposition: string;
  /** The metrics of a journal, as punchgate run serves them. */
  let metricsOf: (j: Journal, live?: LiveFacts) => PunchgateMetrics;

  beforeAll(async () => {
    tmp = tempDir('punchgate-contrib-');
    const config = parseConfig(
      {
        site: 'plant-c',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com' },
        terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
      },
      tmp.dir,
    );
    journal = Journal.open({ path: config.journal.path, site: 'plant-c', mode: 'owner' });
    // Every series present: a terminal that answered, a delivery, an HRMS request.
    journal.ingest([{ terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
    journal.terminals.update('gate-1', { online: true, lastPollAt: Date.now(), lastSuccessAt: Date.now() });
    journal.deliveryState.update({ auth: 'ok', lastSuccessAt: Date.now() });
    metricsOf = (j, live) =>
      new PunchgateMetrics({
        journal: j,
        config: () => config,
        reports: new LatestReport(() => buildStatus(j, config, Date.now(), live ? { live } : {}), Date.now),
        totals: new JournalTotals(j.queries),
        clock: systemClock,
        version: '0.0.0-test',
      });
    // A daemon with a push terminal receiver that listens (its gauge has its label).
    const push: ListenerFact = {
      listener: 'push',
      listen: '0.0.0.0:8081',
      up: true,
      downSince: null,
      code: null,
      nextTryAt: null,
    };
    const metrics = metricsOf(journal, { journalBusySince: null, heldPunches: 0, listeners: [push] });
    metrics.observeHrms({ kind: 'answered', httpStatus: 200, overall: true, results: [] }, 3, 0.01);
    exposition = await metrics.text();
  });
  afterAll(() => {
    journal.close();
    tmp.cleanup();
  });

  const problemsOf = (expr: string) => problemsIn(expr, exposition);

  it('the tokenizer finds metric names and nothing else', () => {
    expect(
      selectors(
        'histogram_quantile(0.95, sum by (instance, le) (rate(a_bucket{x=~"$i", y="v"}[$__rate_interval]))) / on (instance) group_left () b > 1e6 and c offset 5m',
      ),
    ).toEqual([
      {
        metric: 'a_bucket',
        matchers: [
          { label: 'x', op: '=~', value: '$i' },
          { label: 'y', op: '=', value: 'v' },
        ],
      },
      { metric: 'b', matchers: [] },
      { metric: 'c', matchers: [] },
    ]);
  });

  it('a rule with an unknown metric, label or label value is caught', () => {
    expect(problemsOf('punchgate_journal_punches{state="rejected"} > 0')).toEqual([
      'punchgate_journal_punches{state="rejected"} > 0: punchgate_journal_punches{state} is never "rejected" (only pending, refused, dead, quarantined, not_routed)',
    ]);
    expect(problemsOf('punchgate_terminals_up == 0')).toEqual([
      'punchgate_terminals_up == 0: punchgate_terminals_up is not served on /metrics',
    ]);
    expect(problemsOf('punchgate_terminal_up{name="x"} == 0')).toEqual([
      'punchgate_terminal_up{name="x"} == 0: punchgate_terminal_up has no label name',
    ]);
  });

  it('contrib/prometheus/alerts.yml: the five alerts of the issue, on metrics that exist', () => {
    const doc = parse(readFileSync('contrib/prometheus/alerts.yml', 'utf8')) as {
      groups: {
        name: string;
        rules: {
          alert: string;
          expr: string;
          for?: string;
          labels: Record<string, string>;
          annotations: Record<string, string>;
        }[];
      }[];
    };
    const rules = doc.groups.flatMap((g) => g.rules);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^Punchgate[A-Za-z]+$/);
      expect(['info', 'warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
      if (r.for !== undefined) expect(r.for).toMatch(/^\d+[smh]$/);
      expect(problemsOf(r.expr)).toEqual([]);
    }
    const byMetric = (name: string) => rules.filter((r) => selectors(r.expr).some((s) => s.metric === name));
    expect(byMetric('punchgate_terminal_up')[0]).toMatchObject({ expr: 'punchgate_terminal_up == 0', for: '15m' });
    expect(byMetric('punchgate_journal_oldest_pending_age_seconds')[0]?.expr).toBe(
      'punchgate_journal_oldest_pending_age_seconds > 3600',
    );
    expect(byMetric('punchgate_journal_punches')[0]?.expr).toBe('punchgate_journal_punches{state="dead"} > 0');
    expect(byMetric('punchgate_hrms_token_refused')).toHaveLength(1);
    expect(byMetric('punchgate_hrms_token_unusable')).toHaveLength(1);
    expect(byMetric('punchgate_journal_filesystem_avail_bytes')).toHaveLength(1);
    // A config file that does not load (issue 24): an alert of its own, and a louder one on the last good copy.
    expect(byMetric('punchgate_config_load_failed')[0]).toMatchObject({
      alert: 'PunchgateConfigDoesNotLoad',
      expr: 'punchgate_config_load_failed == 1',
    });
    expect(byMetric('punchgate_config_last_good_in_use')[0]).toMatchObject({
      alert: 'PunchgateRunsOnLastGoodConfig',
      labels: { severity: 'critical' },
    });
    // Delivery failing for 10 minutes, as the status's own alert (delivery.alertAfterMinutes' default).
    expect(byMetric('punchgate_delivery_failing_since_timestamp_seconds')[0]).toMatchObject({
      alert: 'PunchgateDeliveryFailing',
      expr: 'punchgate_delivery_failing_since_timestamp_seconds > 0 and time() - punchgate_delivery_failing_since_timestamp_seconds > 600',
    });
  });

  it('contrib/grafana/punchgate.json: every panel and variable reads metrics that exist', () => {
    const dash = JSON.parse(readFileSync('contrib/grafana/punchgate.json', 'utf8')) as {
      uid: string;
      panels: { title: string; targets: { expr: string }[] }[];
      templating: { list: { name: string; query: string | { query: string } }[] };
    };
    expect(dash.uid).toBe('punchgate');
    const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    for (const e of exprs) expect(problemsOf(e)).toEqual([]);
    for (const v of dash.templating.list) {
      const q = typeof v.query === 'string' ? v.query : v.query.query;
      const m = /^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*),\s*(\w+)\)$/.exec(q);
      if (v.name === 'datasource') continue;
      expect(m, q).not.toBeNull();
      expect(problemsOf(m![1]!)).toEqual([]);
      expect(TARGET_LABELS.has(m![2]!)).toBe(true);
    }
    // Each metric of the issue is on the dashboard.
    const used = new Set(exprs.flatMap((e) => selectors(e).map((s) => s.metric.replace(/_bucket$/, ''))));
    for (const name of [
      'punchgate_punches_journaled_total',
      'punchgate_punches_delivered_total',
      'punchgate_journal_punches',
      'punchgate_journal_oldest_pending_age_seconds',
      'punchgate_terminal_up',
      'punchgate_terminal_last_success_timestamp_seconds',
      'punchgate_hrms_requests_total',
      'punchgate_hrms_request_duration_seconds',
      'punchgate_delivery_last_success_timestamp_seconds',
      'punchgate_build_info',
    ]) {
      expect(used, name).toContain(name);
    }
  });

  it('contrib/grafana/punchgate-fleet.json: one row per site with the columns of issue 34, on metrics that exist', () => {
    const dash = JSON.parse(readFileSync('contrib/grafana/punchgate-fleet.json', 'utf8')) as {
      uid: string;
      panels: {
        type: string;
        title: string;
        targets: { expr: string; legendFormat?: string; format?: string }[];
        transformations?: { id: string }[];
      }[];
      templating: { list: { name: string; query: string | { query: string } }[] };
    };
    expect(dash.uid).toBe('punchgate-fleet');
    const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr));
    for (const e of exprs) expect(problemsOf(e)).toEqual([]);
    // Every query of the fleet is per site, or over all sites of the $site choice.
    for (const e of exprs) expect(e, e).toContain('site=~"$site"');
    const table = dash.panels.find((p) => p.type === 'table')!;
    expect(table.transformations?.map((t) => t.id)).toContain('merge');
    for (const t of table.targets) {
      expect(t.format).toBe('table');
      expect(t.expr, t.expr).toMatch(/ by \(site[,)]/);
    }
    expect(table.targets.map((t) => t.legendFormat)).toEqual(
      expect.arrayContaining([
        'Terminals offline',
        'Oldest undelivered punch',
        'Punches today',
        'Dead',
        'Alerts firing',
      ]),
    );
    const site = dash.templating.list.find((v) => v.name === 'site')!;
    expect(typeof site.query === 'string' ? site.query : site.query.query).toBe(
      'label_values(punchgate_build_info, site)',
    );
  });

  it('/metrics serves the metrics of the issue with their types and labels', () => {
    const declared = declaredMetrics(exposition);
    expect(Object.fromEntries([...declared].filter(([n]) => n.startsWith('punchgate_')))).toEqual({
      punchgate_punches_journaled_total: 'counter',
      punchgate_punches_delivered_total: 'counter',
      punchgate_journal_punches: 'gauge',
      punchgate_journal_oldest_pending_age_seconds: 'gauge',
      punchgate_terminal_up: 'gauge',
      punchgate_terminal_last_success_timestamp_seconds: 'gauge',
      punchgate_hrms_requests_total: 'counter',
      punchgate_hrms_request_duration_seconds: 'histogram',
      punchgate_delivery_last_success_timestamp_seconds: 'gauge',
      punchgate_hrms_token_refused: 'gauge',
      punchgate_hrms_token_unusable: 'gauge',
      punchgate_journal_filesystem_avail_bytes: 'gauge',
      punchgate_journal_filesystem_size_bytes: 'gauge',
      punchgate_push_kept_uploads_total: 'counter',
      punchgate_push_kept_held: 'gauge',
      punchgate_push_kept_dropped_total: 'counter',
      // Issue 30: strangers counted apart, in three series.
      punchgate_push_refused_requests: 'gauge',
      punchgate_build_info: 'gauge',
      // Issue 24: a config file that does not load, and delivery failing for a while.
      punchgate_config_load_failed: 'gauge',
      punchgate_config_load_failed_since_timestamp_seconds: 'gauge',
      punchgate_config_last_good_in_use: 'gauge',
      punchgate_config_restart_pending: 'gauge',
      // Issue 30: on the last good copy while the broken file names another HRMS.
      punchgate_config_delivery_held: 'gauge',
      punchgate_delivery_failing_since_timestamp_seconds: 'gauge',
      // Issue 34: the journal held by another process, the box clock's steps, the status page's alerts.
      punchgate_journal_busy_since_timestamp_seconds: 'gauge',
      punchgate_journal_held_punches: 'gauge',
      punchgate_box_clock_steps: 'gauge',
      punchgate_box_clock_behind_seconds: 'gauge',
      punchgate_status_alerts: 'gauge',
      // A port punchgate run cannot take (the push terminal receiver, the status page).
      punchgate_listener_up: 'gauge',
      // Issue 35: the disk's pace under the journal (PunchgateJournalDiskSlow).
      punchgate_journal_disk_sync_seconds: 'histogram',
      // The last backup `punchgate backup` recorded, and whether the status alerts on it (PunchgateBackupOverdue).
      punchgate_backup_last_timestamp_seconds: 'gauge',
      punchgate_backup_overdue: 'gauge',
      // Trial Z3: each sink's queue (punchgate_journal_punches is the first sink's only).
      punchgate_sink_punches: 'gauge',
    });
    for (const line of [
      'punchgate_punches_journaled_total{terminal="gate-1"} 1',
      'punchgate_punches_delivered_total{terminal="gate-1"} 0',
      'punchgate_journal_punches{state="pending"} 1',
      'punchgate_journal_punches{state="refused"} 0',
      'punchgate_journal_punches{state="dead"} 0',
      'punchgate_journal_punches{state="quarantined"} 0',
      'punchgate_terminal_up{terminal="gate-1"} 1',
      'punchgate_hrms_requests_total{outcome="ok",sink="hrms"} 0',
      'punchgate_hrms_requests_total{outcome="bad_reply",sink="hrms"} 1',
      'punchgate_hrms_requests_total{outcome="http_error",sink="hrms"} 0',
      'punchgate_hrms_requests_total{outcome="network_error",sink="hrms"} 0',
      'punchgate_hrms_requests_total{outcome="token_refused",sink="hrms"} 0',
      'punchgate_hrms_request_duration_seconds_count{sink="hrms"} 1',
      'punchgate_build_info{version="0.0.0-test"} 1',
    ]) {
      expect(exposition.split('\n')).toContain(line);
    }
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds'])
      expect(declared.has(name), name).toBe(true);
  });

  it('a healthy box: the "since" gauges have no sample at all (not 0, which reads "failing since 1970")', () => {
    const lines = exposition.split('\n');
    for (const name of [
      'punchgate_delivery_failing_since_timestamp_seconds',
      'punchgate_config_load_failed_since_timestamp_seconds',
      'punchgate_journal_busy_since_timestamp_seconds',
    ]) {
      expect(lines, name).toContain(`# TYPE ${name} gauge`);
      expect(
        lines.filter((l) => l.startsWith(name)),
        name,
      ).toEqual([]);
    }
    expect(lines).toContain('punchgate_box_clock_steps 0');
    expect(lines).toContain('punchgate_journal_held_punches 0');
    // The delivery that succeeded is there: a gauge with a value is still served.
    expect(lines.some((l) => /^punchgate_delivery_last_success_timestamp_seconds\{sink="hrms"\} \d/.test(l))).toBe(
      true,
    );
  });

  it('the journal held by another process: since when, the punches held in memory, and the status alert counted', async () => {
    const since = Date.now() - 400_000;
    const lines = (await metricsOf(journal, { journalBusySince: since, heldPunches: 17 }).text()).split('\n');
    expect(lines).toContain(`punchgate_journal_busy_since_timestamp_seconds ${since / 1000}`);
    expect(lines).toContain('punchgate_journal_held_punches 17');
    expect(lines.find((l) => l.startsWith('punchgate_status_alerts '))).toMatch(/^punchgate_status_alerts [1-9]/);
  });

  it('the last backup: absent and not overdue with none recorded; its time, and overdue once older than the setting', async () => {
    const none = (await metricsOf(journal).text()).split('\n');
    expect(none.filter((l) => l.startsWith('punchgate_backup_last_timestamp_seconds'))).toEqual([]);
    expect(none).toContain('punchgate_backup_overdue 0');
    const record = `${journal.path}.last-backup.json`;
    const write = (at: number) =>
      writeFileSync(
        record,
        JSON.stringify({ at: new Date(at).toISOString(), path: '/b/x.db', punches: 1, newest: null, bytes: 1 }),
      );
    try {
      const fresh = Date.now() - 3_600_000;
      write(fresh);
      const lines = (await metricsOf(journal).text()).split('\n');
      expect(lines).toContain(`punchgate_backup_last_timestamp_seconds ${fresh / 1000}`);
      expect(lines).toContain('punchgate_backup_overdue 0');
      write(Date.now() - 3 * 86_400_000); // journal.backupAlertAfterDays: 2
      expect((await metricsOf(journal).text()).split('\n')).toContain('punchgate_backup_overdue 1');
      writeFileSync(record, 'not json');
      expect((await metricsOf(journal).text()).split('\n')).toContain('punchgate_backup_overdue 1');
    } finally {
      rmSync(record, { force: true });
    }
  });

  it('a failing delivery: the gauge says since when; a success afterwards makes it absent again', async () => {
    const failingSince = Date.parse('2026-11-22T08:00:00Z');
    journal.deliveryState.update({ lastError: 'HTTP 503', lastErrorAt: failingSince, failingSince });
    const failingLines = (await metricsOf(journal).text()).split('\n');
    expect(failingLines).toContain(
      `punchgate_delivery_failing_since_timestamp_seconds{sink="hrms"} ${failingSince / 1000}`,
    );
    journal.deliveryState.update({ failingSince: null, lastSuccessAt: Date.now() });
    const healthyLines = (await metricsOf(journal).text()).split('\n');
    expect(healthyLines.filter((l) => l.startsWith('punchgate_delivery_failing_since'))).toEqual([]);
  });
});
