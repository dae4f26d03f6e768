import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LAST_GOOD_FILE } from '../../src/config/last-good.js';
import type { StatusReport } from '../../src/status/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics } from '../web/helpers.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import type { TerminalSim } from '../../src/sim/terminal/index.js';
import { COMM_KEY, punchTimes, spawnDaemon, startStack, statusUrl, TOKEN, type DaemonProcess } from './stack.js';
import { expectNoSecret } from '../helpers/secret.js';

const nextTime = punchTimes('2026-11-22', 15);

/**
 * A config broken by an edit is an alert everywhere the admin looks (status, page, status.json,
 * /metrics), never leaves the site dark at the next start (punchgate run starts on the last config
 * that loaded, kept beside the journal without its secrets), and never keeps the admin from
 * looking at the site (status, terminals, punches read that copy). Real daemon, real terminal
 * simulator and HRMS; the config is broken in the ways an edit breaks it.
 */
describe('a config file that does not load', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function running(stack: Awaited<ReturnType<typeof startStack>>, d: DaemonProcess) {
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const json = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;
    const page = async () => (await fetch(url)).text();
    const metrics = async () => parseMetrics(await (await fetch(`${url}metrics`)).text());
    return { url, json, page, metrics };
  }

  it('after a reload: an alert with file:line and since when on status, page, status.json and /metrics; read-only commands still work; a restart runs on the last good config', async () => {
    const stack = await startStack({ status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    t.addPunch({ userId: '1001', logTime: nextTime() });
    const d = spawnDaemon(stack.configPath);
    const web = await running(stack, d);
    await waitFor(() => stack.hrms.attendance().length === 1, 15_000, 'first punch delivered');

    // The copy of the config that loaded, beside the journal: the file's text, without the comm key.
    const copyPath = stack.tmp.path(LAST_GOOD_FILE);
    const good = readFileSync(stack.configPath, 'utf8');
    const copy = readFileSync(copyPath, 'utf8');
    expect(copy).toContain('SECRET-KEPT-OUT-OF-THIS-COPY');
    expectNoSecret(copy, String(COMM_KEY));
    expect(copy).not.toContain(TOKEN);
    expect(copy).toContain(`# punchgate-last-good: {"source":"${stack.configPath}"`);

    // A typo in a key, then systemctl reload (SIGHUP): refused, and said everywhere.
    const broken = good.replace('batchSize:', 'batchSise:');
    const line = broken.split('\n').findIndex((l) => l.includes('batchSise')) + 1;
    writeFileSync(stack.configPath, broken);
    d.child.kill('SIGHUP');
    await waitFor(
      async () => (await web.json()).alertItems.some((a) => a.kind === 'config-broken'),
      10_000,
      'the alert',
    );
    const r = await web.json();
    const alert = r.alertItems.find((a) => a.kind === 'config-broken')!;
    expect(alert.cause).toMatch(
      new RegExp(
        `^the config file does not load since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d: ${escape(stack.configPath)}:${line}: delivery\\.batchSise: unknown key: did you mean batchSize\\?; punchgate run keeps the config it loaded at .*, and would start on its last good copy$`,
      ),
    );
    expect(alert.fix).toBe(
      `correct ${stack.configPath}, check it with punchgate check --config-only, then sudo systemctl reload punchgate`,
    );
    expect(r.config).toMatchObject({
      runningOn: 'file',
      lastGood: copyPath,
      failure: { problems: [expect.stringContaining(`:${line}:`)] },
    });
    const page = await web.page();
    expect(page).toContain('data-kind="config-broken"');
    expect(page).toContain(`${stack.configPath}:${line}: delivery.batchSise`);
    const m = await web.metrics();
    expect(m.get('punchgate_config_load_failed')).toBe(1);
    expect(m.get('punchgate_config_load_failed_since_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 120);
    expect(m.get('punchgate_config_last_good_in_use')).toBe(0);
    // The daemon keeps collecting on the config it runs.
    t.addPunch({ userId: '1002', logTime: nextTime() });
    await waitFor(() => stack.hrms.attendance().length === 2, 15_000, 'still collecting');

    // Read-only commands work while the file is broken, and say so in one line.
    for (const args of [['status'], ['terminals'], ['punches']]) {
      const c = await runPunchgate(['--config', stack.configPath, ...args]);
      expect(c.status, `${args.join(' ')}: ${c.stderr}`).toBe(0);
      const lines = c.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^punchgate: ${escape(stack.configPath)}:${line}: delivery\\.batchSise: .* -- shown with the last good config \\(loaded .*, kept at ${escape(copyPath)}\\)$`,
        ),
      );
    }
    const status = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status.stdout).toContain('! the config file does not load since');
    expect(status.stdout).toMatch(new RegExp(`running on ${escape(stack.configPath)} as loaded`));
    // check: the file's problem with its line, exit 78, and which config the daemon runs.
    const check = await runPunchgate(['--config', stack.configPath, 'check']);
    expect(check.status).toBe(78);
    expect(check.stdout).toContain(`${stack.configPath}:${line}: delivery.batchSise: unknown key`);
    expect(check.stdout).toMatch(
      /(PASS|WARN) daemon: punchgate run is running \(pid \d+ holds the journal lock\).*it runs on .* as loaded at .*\(the file does not load since/,
    );
    // The container health check stays healthy: the daemon runs (the broken file is an alert of its own).
    const quick = await runPunchgate(['--config', stack.configPath, 'check', '--quick']);
    expect(quick.status, quick.stdout).toBe(0);

    // A power cut (SIGKILL) and a start with the broken file: it runs on the last good config.
    d.child.kill('SIGKILL');
    await d.exited;
    t.addPunch({ userId: '1003', logTime: nextTime() });
    const d2 = spawnDaemon(stack.configPath);
    const web2 = await running(stack, d2);
    expect(d2.output()).toMatch(/does not load .*punchgate runs on the last good config, loaded .* and kept at/);
    // Its comm key was read back from the broken file (still YAML): the terminal is polled.
    await waitFor(() => stack.hrms.attendance().length === 3, 20_000, 'collecting on the last good config');
    const r2 = await web2.json();
    expect(r2.config).toMatchObject({ runningOn: 'last-good', lastGood: copyPath, secretsMissing: [] });
    expect(r2.alertItems.find((a) => a.kind === 'config-last-good')?.cause).toMatch(
      new RegExp(
        `^punchgate run runs on the last good config \\(loaded .*, kept at ${escape(copyPath)}\\) because ${escape(stack.configPath)} does not load since .*: ${escape(stack.configPath)}:${line}: delivery\\.batchSise`,
      ),
    );
    // One alert for it: not also "would start on its last good copy", which it already runs on.
    expect(r2.alertItems.filter((a) => a.kind === 'config-broken')).toEqual([]);
    expect((await web2.metrics()).get('punchgate_config_last_good_in_use')).toBe(1);
    const check2 = await runPunchgate(['--config', stack.configPath, 'check']);
    expect(check2.stdout).toMatch(
      /WARN daemon: punchgate run is running .*it runs on the last good config \(loaded .*, kept at .*\) because .* does not load/,
    );
    const status2 = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status2.stdout).toMatch(/running on the LAST GOOD COPY/);

    // Corrected: the alert says to reload; a reload applies the file and the alerts go.
    writeFileSync(stack.configPath, good);
    await waitFor(
      async () =>
        (await web2.json()).alertItems.some((a) => a.kind === 'config-last-good' && /loads again/.test(a.cause)),
      10_000,
      'loads again',
    );
    expect((await web2.json()).alertItems.find((a) => a.kind === 'config-last-good')?.fix).toBe(
      'apply the file: sudo systemctl reload punchgate',
    );
    d2.child.kill('SIGHUP');
    await waitFor(async () => (await web2.json()).config?.runningOn === 'file', 10_000, 'back on the file');
    expect((await web2.json()).alertItems.filter((a) => a.kind.startsWith('config'))).toEqual([]);
    expect((await web2.metrics()).get('punchgate_config_load_failed')).toBe(0);
    d2.child.kill('SIGTERM');
    expect((await d2.exited).code).toBe(0);
  }, 120_000);

  it('broken without a reload: the daemon sees it at its next status write', async () => {
    const stack = await startStack({ status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    const web = await running(stack, d);
    await waitFor(async () => (await web.json()).config?.runningOn === 'file', 10_000, 'running');
    writeFileSync(stack.configPath, readFileSync(stack.configPath, 'utf8').replace(/^site: .*$/m, 'site: [plant'));
    await waitFor(
      async () => (await web.json()).alertItems.some((a) => a.kind === 'config-broken'),
      10_000,
      'the alert',
    );
    expect((await web.json()).config?.failure?.problems[0]).toMatch(new RegExp(`^${escape(stack.configPath)}:\\d+: `));
  }, 60_000);

  it('a file that is not YAML any more at a restart: the last good config runs, without the terminal whose comm key it cannot read back, and says so', async () => {
    const stack = await startStack({ status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    const web = await running(stack, d);
    await waitFor(async () => (await web.json()).config?.runningOn === 'file', 10_000, 'running');
    d.child.kill('SIGKILL');
    await d.exited;
    // A bad paste in the terminals: YAML no more from there on (the comm key with it).
    const good = readFileSync(stack.configPath, 'utf8');
    writeFileSync(stack.configPath, good.replace(`commKey: ${COMM_KEY}`, `commKey: [${COMM_KEY}\n  - {name:`));
    const d2 = spawnDaemon(stack.configPath);
    const web2 = await running(stack, d2);
    const r = await web2.json();
    expect(r.config).toMatchObject({
      runningOn: 'last-good',
      secretsMissing: ['the comm key of terminal gate-1 (it is not polled)'],
    });
    expect(r.alertItems.find((a) => a.kind === 'config-last-good')?.cause).toMatch(
      /; without the comm key of terminal gate-1 \(it is not polled\)$/,
    );
  }, 60_000);

  it('a file without even its journal.path: under systemd the copy is found in the StateDirectory', async () => {
    const stack = await startStack({ status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    const web = await running(stack, d);
    await waitFor(async () => (await web.json()).config?.runningOn === 'file', 10_000, 'running');
    d.child.kill('SIGKILL');
    await d.exited;
    writeFileSync(stack.configPath, 'site: [\n');
    // systemd sets STATE_DIRECTORY for StateDirectory=punchgate (the journal's folder there).
    const d2 = spawnDaemon(stack.configPath, [], { STATE_DIRECTORY: stack.tmp.dir });
    const web2 = await running(stack, d2);
    expect((await web2.json()).config).toMatchObject({ runningOn: 'last-good' });
    // Without it (and no journal.path to read), there is nothing to run on: exit 78 as before.
    d2.child.kill('SIGKILL');
    await d2.exited;
    const d3 = spawnDaemon(stack.configPath);
    expect((await d3.exited).code).toBe(78);
  }, 60_000);

  /**
   * Issue 30: the copy is a fallback, not a time machine. The admin moved the site to a new HRMS and
   * removed a terminal (or moved it), and broke the file in the same edit; then the box restarted.
   * What the broken file still says wins: nothing goes to the old HRMS, the removed terminal is not
   * collected from, and everything says so; a reload of the corrected file delivers to the new one.
   */
  it('a restart with a broken file that names a new HRMS and no longer lists a terminal: delivery held, the terminal left alone, said everywhere; the corrected file delivers to the new HRMS only', async () => {
    const stack = await startStack({ terminals: 3, status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const newHrms = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => newHrms.stop());
    const [g1, g2, g3] = stack.terminals as [TerminalSim, TerminalSim, TerminalSim];
    const d = spawnDaemon(stack.configPath);
    await running(stack, d);
    g1.addPunch({ userId: '2001', logTime: nextTime() });
    await waitFor(() => stack.hrms.attendance().length === 1, 15_000, 'first punch delivered');
    d.child.kill('SIGKILL');
    await d.exited;
    // The edit: the new HRMS, gate-2 removed, gate-3 moved to another port; and a typo.
    stack.writeConfig(undefined, (c) => {
      c.hrms.baseUrl = newHrms.url;
      c.terminals = c.terminals.filter((t) => t.name !== 'gate-2');
      c.terminals[1]!.port = 1;
      (c.delivery as Record<string, unknown>).batchSise = 5;
    });
    for (const t of [g1, g2, g3]) t.addPunch({ userId: '2002', logTime: nextTime() });
    const d2 = spawnDaemon(stack.configPath);
    const web = await running(stack, d2);
    await waitFor(async () => (await web.json()).punches.pending >= 1, 15_000, 'gate-1 collected');
    const r = await web.json();
    expect(r.config).toMatchObject({
      runningOn: 'last-good',
      fallback: {
        deliveryHeld: `${stack.configPath} names the HRMS ${newHrms.url}, the last good copy ${stack.hrms.url}`,
        notStarted: [
          { name: 'gate-2', why: `${stack.configPath} no longer lists it` },
          { name: 'gate-3', why: expect.stringMatching(/gives it another port \(1; the copy: \d+\)/) },
        ],
      },
    });
    expect(r.terminals.map((t) => t.name)).toEqual(['gate-1']);
    const held = r.alertItems.find((a) => a.kind === 'config-delivery-held')!;
    expect(held.cause).toContain(`delivery is HELD, nothing is sent to the HRMS`);
    expect(held.fix).toContain(`correct ${stack.configPath}`);
    expect(r.alertItems.find((a) => a.kind === 'config-last-good')?.cause).toMatch(
      /not collected from, as the file says: gate-2 \(.* no longer lists it\), gate-3 \(/,
    );
    expect((await web.metrics()).get('punchgate_config_delivery_held')).toBe(1);
    expect(await web.page()).toContain('id="config-delivery-held"');
    const status = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status.stdout).toContain(`delivery HELD: ${stack.configPath} names the HRMS ${newHrms.url}`);
    expect(status.stdout).toContain('not collected from: gate-2');
    expect(d2.output()).toMatch(/delivery is HELD \(punches are journalled and wait\)/);
    // A while of delivery rounds: nothing reached either HRMS.
    // Delivery rounds run every 100 ms: a second of status reports later, nothing reached either HRMS.
    const since = Date.parse(r.generatedAt);
    await waitFor(async () => Date.parse((await web.json()).generatedAt) - since >= 1500, 10_000, 'a while');
    expect(stack.hrms.attendance()).toHaveLength(1);
    expect(newHrms.attendance()).toHaveLength(0);
    const journalled = (await runPunchgate(['--config', stack.configPath, 'punches', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { terminal: string }).terminal);
    expect(journalled.filter((t) => t !== 'gate-1')).toEqual([]);

    // Corrected and reloaded: the waiting punch goes to the new HRMS, none to the old.
    stack.writeConfig(undefined, (c) => {
      c.hrms.baseUrl = newHrms.url;
      c.terminals = c.terminals.filter((t) => t.name !== 'gate-2');
      c.terminals[1]!.port = g3.port;
    });
    d2.child.kill('SIGHUP');
    await waitFor(() => newHrms.attendance().length >= 2, 15_000, 'delivered to the new HRMS');
    expect(stack.hrms.attendance()).toHaveLength(1);
    expect((await web.json()).alertItems.filter((a) => a.kind.startsWith('config'))).toEqual([]);
    d2.child.kill('SIGTERM');
    expect((await d2.exited).code).toBe(0);
  }, 120_000);

  it('a restart with a file broken in its HRMS address: the address cannot be read, so delivery is held; the terminals are collected from', async () => {
    // No comm key (nothing to read back from the broken file): the copy's terminal is polled.
    const stack = await startStack({ status: { intervalMs: 300 }, commKey: 0 });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    await running(stack, d);
    d.child.kill('SIGKILL');
    await d.exited;
    const good = readFileSync(stack.configPath, 'utf8');
    // A bad paste into the address: YAML cannot tell what it is any more.
    writeFileSync(stack.configPath, good.replace('baseUrl: ', 'baseUrl: ['));
    stack.terminals[0]!.addPunch({ userId: '2101', logTime: nextTime() });
    const d2 = spawnDaemon(stack.configPath);
    const web = await running(stack, d2);
    await waitFor(async () => (await web.json()).punches.pending >= 1, 15_000, 'collected');
    const r = await web.json();
    expect(r.config?.fallback?.deliveryHeld).toMatch(/the HRMS address \(hrms\.baseUrl\) in .* cannot be read/);
    expect(r.alertItems.some((a) => a.kind === 'config-delivery-held')).toBe(true);
    const since = Date.parse(r.generatedAt);
    await waitFor(async () => Date.parse((await web.json()).generatedAt) - since >= 1500, 10_000, 'a while');
    expect(stack.hrms.attendance()).toHaveLength(0);
  }, 60_000);

  it("a second punchgate run, refused because the journal is in use, leaves the running daemon's copy alone: a restart with a broken file still runs on it", async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    await running(stack, d);
    const copyPath = stack.tmp.path(LAST_GOOD_FILE);
    await waitFor(() => existsSync(copyPath), 10_000, 'the copy of the running config');
    const copy = readFileSync(copyPath, 'utf8');

    // A test config made from the same file, with the same journal.path, and another HRMS.
    const other = stack.tmp.path('other.yaml');
    writeFileSync(other, readFileSync(stack.configPath, 'utf8').replace(/batchSize: \d+/, 'batchSize: 7'));
    const refused = await runPunchgate(['--config', other, 'run']);
    expect(refused.status).toBe(75);
    expect(refused.stderr).toMatch(/in use/);
    expect(readFileSync(copyPath, 'utf8')).toBe(copy);

    // Power cut, then the file is broken: the restart runs on the running daemon's copy.
    d.child.kill('SIGKILL');
    await d.exited;
    writeFileSync(stack.configPath, readFileSync(stack.configPath, 'utf8').replace('batchSize:', 'batchSise:'));
    const again = spawnDaemon(stack.configPath);
    const web = await running(stack, again);
    await waitFor(async () => (await web.json()).config?.runningOn === 'last-good', 10_000, 'running on the copy');
  }, 60_000);

  it('a punchgate run refused because its journal cannot be used keeps no copy beside it', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    writeFileSync(stack.tmp.path('journal.db'), '');
    const refused = await runPunchgate(['--config', stack.configPath, 'run']);
    expect(refused.status).toBe(74);
    expect(existsSync(stack.tmp.path(LAST_GOOD_FILE))).toBe(false);
  }, 30_000);

  it('no copy yet (the very first start): exit 78 with the file lines, as before', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    writeFileSync(stack.configPath, readFileSync(stack.configPath, 'utf8').replace('batchSize:', 'batchSise:'));
    const d = spawnDaemon(stack.configPath);
    expect((await d.exited).code).toBe(78);
    expect(d.output()).toMatch(/punchgate\.yaml:\d+: delivery\.batchSise: unknown key/);
    const status = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status.status).toBe(78);
  }, 30_000);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
