/**
 * contrib/prometheus/alerts.yml on Prometheus's own tool (Debian's prometheus package brings
 * promtool; .ci/run installs it): the rules load, their unit tests (alerts.test.yml) pass, and
 * every rule is tested both ways there: a healthy box fires nothing, and it fires when it should.
 * Which metrics the rules read is checked against a real /metrics in test/web/contrib.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const DIR = 'contrib/prometheus';

interface RuleTest {
  eval_time: string;
  alertname: string;
  exp_alerts: { exp_labels?: Record<string, string> }[];
}

const promtool = (args: string[]) => {
  const r = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool: ${r.error.message} (Debian: apt-get install prometheus)`);
  return { status: r.status, all: `${r.stdout}${r.stderr}` };
};

describe('contrib/prometheus/alerts.yml under promtool', () => {
  const rules = (
    parse(readFileSync(`${DIR}/alerts.yml`, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] }
  ).groups.flatMap((g) => g.rules);
  const tests = (
    parse(readFileSync(`${DIR}/alerts.test.yml`, 'utf8')) as {
      tests: { name: string; alert_rule_test: RuleTest[] }[];
    }
  ).tests;

  it('promtool check rules: every rule is valid', () => {
    const r = promtool(['check', 'rules', 'alerts.yml']);
    expect(r.status, r.all).toBe(0);
    expect(r.all).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('promtool test rules: the unit tests pass', () => {
    const r = promtool(['test', 'rules', 'alerts.test.yml']);
    expect(r.status, r.all).toBe(0);
    expect(r.all).toContain('SUCCESS');
  });

  it('every rule is tested both ways: silent on healthy boxes, and firing with the site label', () => {
    const healthy = tests.find((t) => t.name === 'healthy boxes fire nothing');
    expect(healthy).toBeDefined();
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(
        healthy!.alert_rule_test.some((c) => c.alertname === name && c.exp_alerts.length === 0),
        `${name}: no "healthy boxes fire nothing" case`,
      ).toBe(true);
      const firing = tests
        .filter((t) => t !== healthy)
        .flatMap((t) => t.alert_rule_test)
        .filter((c) => c.alertname === name && c.exp_alerts.length > 0);
      expect(firing.length, `${name}: no case where it fires`).toBeGreaterThan(0);
      for (const c of firing) for (const a of c.exp_alerts) expect(a.exp_labels?.site, name).toMatch(/^plant-/);
      // ...and a case where it does not fire yet (or no more) beside a firing one.
      expect(
        tests
          .filter((t) => t !== healthy)
          .some((t) => t.alert_rule_test.some((c) => c.alertname === name && c.exp_alerts.length === 0)),
        `${name}: no case outside the healthy box where it stays silent`,
      ).toBe(true);
    }
  });

  it('docs/fleet.md lists every rule in its table of alerts', () => {
    const doc = readFileSync('docs/fleet.md', 'utf8');
    const table = doc.slice(doc.indexOf('### Alerts'), doc.indexOf('### Dashboards'));
    const listed = [...table.matchAll(/`(Punchgate\w+)`/g)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual(rules.map((r) => r.alert).sort());
  });

  it("the issue's list is covered: a terminal offline, delivery failing, a broken config, dead punches, the journal unwritable, the box clock stepped, the sink down", () => {
    const byExpr = (metric: string) => rules.filter((r) => r.expr.includes(metric)).map((r) => r.alert);
    expect(byExpr('punchgate_terminal_up')).toContain('PunchgateTerminalDown');
    expect(byExpr('punchgate_delivery_failing_since_timestamp_seconds')).toContain('PunchgateDeliveryFailing');
    expect(byExpr('punchgate_config_load_failed')).toContain('PunchgateConfigDoesNotLoad');
    expect(byExpr('punchgate_journal_punches{state="dead"}')).toContain('PunchgateDeadPunches');
    expect(byExpr('punchgate_journal_busy_since_timestamp_seconds')).toContain('PunchgateJournalBusy');
    expect(byExpr('process_start_time_seconds')).toContain('PunchgateRestarting');
    expect(byExpr('punchgate_box_clock_steps')).toContain('PunchgateBoxClockStepped');
    expect(byExpr('punchgate_hrms_requests_total')).toContain('PunchgateHrmsUnreachable');
  });

  // Each state of the config file that the daemon exports (src/metrics/registry.ts) is a rule of its
  // own: a config change pushed by Ansible that waits for a restart was reported "changed" and
  // "reloaded" by the role, and the central side said nothing but the info-level catch-all an hour
  // later (a fleet trial).
  // (A `_timestamp_seconds` gauge says since when, for the dashboards, of a state another one flags.)
  it('every punchgate_config_* gauge the daemon exports is read by a rule', () => {
    const exported = [...readFileSync('src/metrics/registry.ts', 'utf8').matchAll(/name: '(punchgate_config_\w+)'/g)]
      .map((m) => m[1]!)
      .filter((name) => !name.endsWith('_timestamp_seconds'));
    expect(exported.length).toBeGreaterThan(3);
    for (const metric of exported)
      expect(
        rules.filter((r) => new RegExp(`\\b${metric}\\b`).test(r.expr)).map((r) => r.alert),
        `${metric}: no rule reads it`,
      ).not.toEqual([]);
  });
});
