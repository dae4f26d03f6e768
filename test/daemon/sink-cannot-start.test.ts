import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/status/index.js';
import { selfSignedCert } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';
import { punchTimes, spawnDaemon, startStack, statusUrl } from './stack.js';

const nextTime = punchTimes('2026-11-23', 9);

const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

/**
 * A sink whose sender cannot be built (here hrms.caFile names no file) is a delivery failure seen
 * at once everywhere the admin looks: status.txt, status.json, /readyz and /metrics, with the key
 * and its fix; its punches wait, none lost; a reload with the file in place starts it. Found by an
 * adversarial trial: the daemon logged one line, then said "No alerts." and "not tried yet".
 */
describe('a sink that cannot start', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is an alert at once with the key and its fix; punches wait; a reload with the file fixed delivers them', async () => {
    const stack = await startStack({ delivery: { alertAfterMinutes: 1 } });
    cleanups.push(() => stack.stop());
    const caFile = stack.tmp.path('missing.pem');
    const config = parse(readFileSync(stack.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
    config.hrms!.caFile = caFile;
    writeFileSync(stack.configPath, stringify(config));
    const times = [nextTime(), nextTime()];
    for (const logTime of times) stack.terminals[0]!.addPunch({ userId: '1001', logTime });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const status = () => read(stack.tmp.path('status.txt'));
    const json = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;

    const problem = `hrms.caFile: ${caFile} does not exist`;
    const fix = 'put the CA certificate (PEM) there, or remove caFile';
    // Well before delivery.alertAfterMinutes: no retry mends a missing file.
    await waitFor(() => /pending 2\b/.test(status()) && status().includes(problem), 15_000, 'the alert in status.txt');
    const text = status();
    expect(text).not.toContain('No alerts.');
    expect(text).toContain('HRMS: CANNOT START');
    expect(text).toContain(`delivery to sink hrms cannot start`);
    expect(text).toContain(`${problem}; nothing is sent to it, 2 punches waiting, kept safely: ${fix}`);
    expect(text).not.toMatch(/proxy/i);

    const r = await json();
    const alert = r.alertItems.find((a) => a.kind === 'delivery-cannot-start');
    expect(alert?.cause).toContain(problem);
    expect(alert?.fix).toContain(fix);
    expect(r.alerts.some((a) => a.includes(problem))).toBe(true);
    expect(r.delivery.failingSince).not.toBeNull();
    expect(r.punches.pending).toBe(2);
    expect(await (await fetch(url)).text()).toContain('CANNOT START');

    const ready = await fetch(`${url}readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain(problem);
    const metrics = parseMetrics(await (await fetch(`${url}metrics`)).text());
    expect(metrics.get('punchgate_delivery_failing_since_timestamp_seconds{sink="hrms"}')).toBeGreaterThan(0);
    expect(stack.hrms.requests()).toBe(0);

    // The admin puts the CA there and reloads: the same config, the sink built now, both punches go.
    writeFileSync(caFile, selfSignedCert(stack.tmp.path(''), 'ca').cert);
    d.child.kill('SIGHUP');
    await waitFor(() => stack.hrms.attendance().length === 2, 15_000, 'both punches delivered after the reload');
    // The page's queue figures are recounted at each status interval.
    await waitFor(
      async () => {
        const j = await json();
        return j.delivery.failingSince === null && j.punches.delivered === 2;
      },
      15_000,
      'the failing state cleared',
    );
    const after = await json();
    expect(after.alertItems.map((a) => a.kind)).not.toContain('delivery-cannot-start');
    expect(after.punches.pending).toBe(0);
    expect((await fetch(`${url}readyz`)).status).toBe(200);
    await waitFor(() => status().includes('No alerts.'), 15_000, 'status.txt all well');
  });

  it('another sink that cannot start: its own alert and row; the default sink delivers; a reload builds it', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const caFile = stack.tmp.path('erp-ca.pem');
    writeFileSync(stack.tmp.path('key'), 'k\n');
    writeFileSync(stack.tmp.path('secret'), 's\n');
    const config = parse(readFileSync(stack.configPath, 'utf8')) as Record<string, unknown>;
    config.sinks = [
      {
        name: 'erp',
        kind: 'frappe',
        // Never reached in this test: only whether its sender is built.
        baseUrl: 'https://127.0.0.1:9',
        apiKeyFile: stack.tmp.path('key'),
        apiSecretFile: stack.tmp.path('secret'),
        caFile,
      },
    ];
    writeFileSync(stack.configPath, stringify(config));
    stack.terminals[0]!.addPunch({ userId: '1001', logTime: nextTime() });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const status = () => read(stack.tmp.path('status.txt'));
    const json = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;

    const problem = `sinks[erp].caFile: ${caFile} does not exist`;
    await waitFor(() => stack.hrms.attendance().length === 1, 15_000, 'the default sink delivers');
    await waitFor(() => /erp\s+frappe CANNOT START\s+pending 1\b/.test(status()), 15_000, 'the sink row');
    expect(status()).toContain(`delivery to sink erp cannot start`);
    expect(status()).toContain(problem);
    const r = await json();
    expect(r.alertItems.find((a) => a.kind === 'sink-cannot-start')?.cause).toContain(problem);
    expect(r.sinks?.find((x) => x.name === 'erp')?.punches.pending).toBe(1);

    // Nothing in the config changes, only the file appears: the reload builds the sink all the same.
    writeFileSync(caFile, selfSignedCert(stack.tmp.path(''), 'erp-ca').cert);
    d.child.kill('SIGHUP');
    await waitFor(
      async () =>
        !((await json()).sinks?.find((x) => x.name === 'erp')?.delivery.lastError ?? '').startsWith('cannot start'),
      15_000,
      'the sink built after the reload',
    );
    expect((await json()).alertItems.map((a) => a.kind)).not.toContain('sink-cannot-start');
  });
});
