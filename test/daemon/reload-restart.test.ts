import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import { formatReport, runChecks } from '../../src/check/index.js';
import { startPushStack } from '../adms/daemon-stack.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';
import { spawnDaemon, statusUrl } from './stack.js';

const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

/**
 * A reload that cannot apply some settings of the file (adms.listen, the journal's tolerances...):
 * the status, the page, status.json, /metrics and `punchgate check` say which ones wait for a
 * restart, and the fix. Only a log line said it, while the status said the file was in force
 * and check passed the old port (a new-user trial).
 */
describe('punchgate run reloaded with settings a reload cannot apply', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('every surface says which settings wait for a restart, and the fix', async () => {
    const stack = await startPushStack({
      terminals: [{ name: 'lobby', serial: 'LOBBY0001' }],
      status: { listen: '127.0.0.1:0' },
    });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const statusTxt = () => read(stack.tmp.path('status.txt'));
    await waitFor(() => /push terminal receiver listening/.test(d.output()), 20_000, 'the receiver listening');

    const config = parse(readFileSync(stack.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
    const oldListen = String(config.adms!.listen);
    const newListen = `127.0.0.1:${await freePort()}`;
    config.adms!.listen = newListen;
    config.journal!.pastToleranceHours = 48;
    writeFileSync(stack.configPath, stringify(config));
    d.child.kill('SIGHUP');
    const keys = 'journal.pastToleranceHours, adms.listen';
    await waitFor(() => /config reloaded/.test(d.output()), 20_000, 'the reload');
    expect(d.output()).toContain(`but ${keys} take effect only after a restart`);

    await waitFor(() => statusTxt().includes(`WAITING FOR A RESTART: ${keys}`), 20_000, 'the status log');
    expect(statusTxt()).toContain(`but ${keys} take effect only after a restart`);
    expect(statusTxt()).toContain('sudo systemctl restart punchgate');
    const json = JSON.parse(await (await fetch(`${url}status.json`)).text()) as {
      config: { restartPending?: string[] };
      alerts: string[];
    };
    expect(json.config.restartPending).toEqual(['journal.pastToleranceHours', 'adms.listen']);
    expect(json.alerts.join('\n')).toContain(`but ${keys} take effect only after a restart`);
    const page = await (await fetch(url)).text();
    expect(page).toContain('waiting for a restart');
    expect(page).toContain(`but ${keys} take effect only after a restart`);
    const metrics = parseMetrics(await (await fetch(`${url}metrics`)).text());
    expect(metrics.get('punchgate_config_restart_pending')).toBe(2);

    // punchgate check: WARN, not PASS, on the daemon and on the receiver's port.
    const text = formatReport(await runChecks({ configPath: stack.configPath, env: {} }));
    expect(text).toMatch(
      /^WARN daemon: .* was reloaded.*but journal\.pastToleranceHours, adms\.listen take effect only after a restart/m,
    );
    expect(text).toContain(
      `WARN adms receiver: listening on ${oldListen}, but adms.listen in the config says ${newListen}: it takes effect only after a restart — sudo systemctl restart punchgate`,
    );
  }, 90_000);
});
