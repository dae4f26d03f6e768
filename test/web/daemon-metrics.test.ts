import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  punchTimes,
  spawnDaemon,
  startStack,
  statusUrl,
  TOKEN,
  COMM_KEY,
  type DaemonProcess,
} from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics, poll } from './helpers.js';
import { expectNoSecret } from '../helpers/secret.js';

const nextTime = punchTimes('2026-11-22', 9);

/**
 * `punchgate run` as a child process against the terminal and HRMS simulators: /metrics must
 * say what the simulators saw.
 */
describe('/metrics of punchgate run', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const daemon = (configPath: string) => {
    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    return d;
  };
  const scrape = (url: string) => {
    const p = poll(`${url}metrics`);
    cleanups.push(p.stop);
    return { value: (key: string) => parseMetrics(p.latest()).get(key), text: p.latest };
  };
  const stopped = async (d: DaemonProcess) => {
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  };

  it('counts what the simulators saw, every HRMS outcome, a terminal going down, and keeps the totals over a restart', async () => {
    const stack = await startStack({ terminals: 2, delivery: { authRetryMs: 200 } });
    cleanups.push(() => stack.stop());
    const [a, b] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    for (let i = 0; i < 25; i++) a.addPunch({ userId: String(1000 + (i % 5)), logTime: nextTime() });
    for (let i = 0; i < 15; i++) b.addPunch({ userId: String(2000 + (i % 5)), logTime: nextTime() });
    const d = daemon(stack.configPath);
    const url = await statusUrl(d);
    const m = scrape(url);
    const fromTerminal = (prefix: string) =>
      stack.hrms.attendance().filter((p) => p.biometriccode.startsWith(prefix)).length;

    // Journalled and delivered equal what the terminals hold and the HRMS received.
    await waitFor(() => stack.hrms.attendance().length === 40, 15_000, 'all punches delivered');
    await waitFor(
      () =>
        m.value('punchgate_punches_journaled_total{terminal="gate-1"}') === 25 &&
        m.value('punchgate_punches_journaled_total{terminal="gate-2"}') === 15 &&
        m.value('punchgate_punches_delivered_total{terminal="gate-1"}') === fromTerminal('1') &&
        m.value('punchgate_punches_delivered_total{terminal="gate-2"}') === fromTerminal('2'),
      10_000,
      'journaled and delivered totals equal the simulators',
    );
    expect(fromTerminal('1')).toBe(25);
    await waitFor(
      () => m.value('punchgate_hrms_requests_total{outcome="ok",sink="hrms"}') === stack.hrms.requests(),
      20_000,
      'one ok per HRMS request',
    );
    // A terminal's record says it answered once its poll has ended, a little after its punches are
    // journalled and may already be delivered (the poll waits for the disk sync, then disconnects).
    await waitFor(
      () =>
        m.value('punchgate_terminal_up{terminal="gate-1"}') === 1 &&
        m.value('punchgate_terminal_up{terminal="gate-2"}') === 1,
      10_000,
      'both terminals up once their first poll ended',
    );
    // The queue figures are those of the status report (rebuilt with the status log).
    await waitFor(() => m.value('punchgate_journal_punches{state="pending"}') === 0, 20_000, 'nothing pending');
    expect(m.value('punchgate_journal_punches{state="dead"}')).toBe(0);
    expect(m.value('punchgate_journal_oldest_pending_age_seconds')).toBe(0);
    expect(m.value('punchgate_hrms_token_refused{sink="hrms"}')).toBe(0);
    expect(m.value('punchgate_delivery_last_success_timestamp_seconds{sink="hrms"}')).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    expect(m.value('punchgate_terminal_last_success_timestamp_seconds{terminal="gate-1"}')).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    // The bundle finds its version in package.json.
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(m.value(`punchgate_build_info{version="${version}"}`)).toBe(1);
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(0);

    // Each kind of HRMS failure lands in its own outcome: 503s are http_error, an HTML page with
    // 200 is bad_reply, a dropped connection is network_error, a refused token is token_refused.
    const outcome = (o: string) => m.value(`punchgate_hrms_requests_total{outcome="${o}",sink="hrms"}`) ?? 0;
    const phase = async (faults: Parameters<typeof stack.hrms.setFaults>[0], o: string) => {
      const before = outcome(o);
      stack.hrms.setFaults(faults);
      a.addPunch({ userId: '1042', logTime: nextTime() });
      await waitFor(() => outcome(o) >= before + 2, 15_000, `${o} counted`);
      stack.hrms.setFaults({ errorRate: 0, nonJsonRate: 0, resetRate: 0, tokenExpiresAt: null });
    };
    await phase({ errorRate: 1 }, 'http_error');
    await phase({ nonJsonRate: 1 }, 'bad_reply');
    await phase({ resetRate: 1 }, 'network_error');
    const ready = poll(`${url}readyz`);
    cleanups.push(ready.stop);
    stack.hrms.setFaults({ tokenExpiresAt: 0 });
    a.addPunch({ userId: '1043', logTime: nextTime() });
    await waitFor(() => outcome('token_refused') >= 1, 15_000, 'token_refused counted');
    await waitFor(() => m.value('punchgate_hrms_token_refused{sink="hrms"}') === 1, 20_000, 'token refused gauge');
    await waitFor(() => ready.status() === 503, 20_000, '/readyz 503 while the token is refused');
    expect(ready.latest()).toMatch(
      /^not ready: HRMS refuses the token since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d: put a valid token/,
    );
    // Every endpoint while the token is refused: the state is there (the page and /status.json share
    // a report up to a second old), the token and comm key are not.
    const json = poll(`${url}status.json`);
    cleanups.push(json.stop);
    await waitFor(() => /"auth": "failed"/.test(json.latest()), 20_000, '/status.json shows the refused token');
    const served: string[] = [];
    for (const path of ['', 'status.json', 'metrics', 'livez', 'readyz'])
      served.push(await (await fetch(url + path)).text());
    expect((JSON.parse(served[1]!) as { delivery: { auth: string } }).delivery.auth).toBe('failed');
    expect(served[0]).toContain('AUTH FAILED');
    for (const body of served) {
      expect(body).not.toContain(TOKEN);
      expectNoSecret(body, String(COMM_KEY));
    }
    stack.hrms.setFaults({ tokenExpiresAt: null });
    await waitFor(() => ready.status() === 200, 10_000, '/readyz 200 once the token is accepted again');

    // Everything delivered in the end; every request the HRMS saw is counted exactly once.
    await waitFor(() => stack.hrms.attendance().length === 44, 15_000, 'the fault phases delivered');
    await waitFor(
      () =>
        m.value('punchgate_punches_delivered_total{terminal="gate-1"}') === 29 &&
        ['ok', 'http_error', 'bad_reply', 'network_error', 'token_refused'].reduce((s, o) => s + outcome(o), 0) ===
          stack.hrms.requests(),
      20_000,
      'outcomes add up to the requests the HRMS saw',
    );
    expect(m.value('punchgate_hrms_request_duration_seconds_count{sink="hrms"}')).toBe(stack.hrms.requests());
    // Delivery's settles synced the journal's WAL beside the event loop: each sync timed.
    expect(m.value('punchgate_journal_disk_sync_seconds_count')).toBeGreaterThan(0);
    expect(m.value('punchgate_journal_disk_sync_seconds_bucket{le="+Inf"}')).toBe(
      m.value('punchgate_journal_disk_sync_seconds_count'),
    );

    // A terminal that stops answering is down.
    await b.stop();
    await waitFor(() => m.value('punchgate_terminal_up{terminal="gate-2"}') === 0, 10_000, 'gate-2 down');
    expect(m.value('punchgate_terminal_up{terminal="gate-1"}')).toBe(1);

    // A restart: the totals come from the journal, the HRMS request counts start again.
    await stopped(d);
    const d2 = daemon(stack.configPath);
    const m2 = scrape(await statusUrl(d2));
    await waitFor(() => m2.text() !== '', 10_000, 'metrics after the restart');
    expect(m2.value('punchgate_punches_journaled_total{terminal="gate-1"}')).toBe(29);
    expect(m2.value('punchgate_punches_journaled_total{terminal="gate-2"}')).toBe(15);
    expect(m2.value('punchgate_punches_delivered_total{terminal="gate-1"}')).toBe(29);
    expect(m2.value('punchgate_punches_delivered_total{terminal="gate-2"}')).toBe(15);
    a.addPunch({ userId: '1044', logTime: nextTime() });
    await waitFor(
      () =>
        m2.value('punchgate_punches_journaled_total{terminal="gate-1"}') === 30 &&
        m2.value('punchgate_punches_delivered_total{terminal="gate-1"}') === 30,
      10_000,
      'a new punch counted on top of the journal totals',
    );
    await stopped(d2);
    for (const out of [d.output(), d2.output(), m.text(), m2.text()]) {
      expect(out).not.toContain(TOKEN);
      expectNoSecret(out, String(COMM_KEY));
    }
  }, 120_000);
});
