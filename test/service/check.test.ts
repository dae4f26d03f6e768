import { chmodSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { saveLastGood } from '../../src/config/last-good.js';
import { join } from 'node:path';
import { OwnerLock } from '../../src/journal/lock.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  formatReport,
  formatReportJson,
  runChecks,
  type CheckOptions,
  type CheckReport,
  type CheckResult,
} from '../../src/check/index.js';
import { checkNotify } from '../../src/check/notify-check.js';
import { checkDisk } from '../../src/check/disk-check.js';
import { describeSkew } from '../../src/check/zk-check.js';
import { Journal } from '../../src/journal/journal.js';
import { wallClockAt } from '../../src/punch.js';
import { tempDir } from '../helpers/tmp.js';
import { createPtyPair } from '../../src/sim/serial/index.js';
import {
  closedPort,
  COMM_KEY,
  GOOD_TOKEN,
  runCheckCli,
  silentServer,
  startSite,
  WRONG_TOKEN,
  type Site,
} from './helpers.js';
import { expectNoSecret } from '../helpers/secret.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(opts: Parameters<typeof startSite>[0] = {}): Promise<Site> {
  const s = await startSite(opts);
  cleanups.push(() => s.stop());
  return s;
}

/** Runs the checks in-process with an empty environment (no token from the test runner's env). */
async function check(
  s: Site,
  over: Partial<CheckOptions> = {},
): Promise<{ report: CheckReport; text: string; json: string }> {
  const report = await runChecks({ configPath: s.configPath, env: {}, ...over });
  return { report, text: formatReport(report), json: formatReportJson(report) };
}

function line(text: string, name: string): string {
  const found = text.split('\n').find((l) => / /.test(l) && l.slice(5).startsWith(`${name}:`));
  if (!found) throw new Error(`no line for ${name} in:\n${text}`);
  return found;
}

function byName(report: CheckReport, name: string): CheckResult {
  const c = report.checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check named ${name}: ${report.checks.map((x) => x.name).join(', ')}`);
  return c;
}

/** Neither the token nor the comm key may appear anywhere in what a person or a machine sees. */
function expectNoSecrets(...outputs: string[]): void {
  for (const out of outputs) {
    for (const secret of [GOOD_TOKEN, WRONG_TOKEN, String(COMM_KEY), '1357911']) expectNoSecret(out, secret);
  }
}

describe('punchgate check against the simulators', () => {
  it('passes everything on a healthy site, and the token check records nothing at the HRMS', async () => {
    const s = await site();
    const { report, text, json } = await check(s);
    expect(report.exitCode).toBe(0);
    expect(report.ok).toBe(true);
    for (const name of ['config', 'journal', 'systemd notify', 'terminal gate-1', 'hrms'])
      expect(byName(report, name).status).toBe('pass');
    expect(line(text, 'terminal gate-1')).toMatch(
      /^PASS terminal gate-1: 127\.0\.0\.1:\d+ over tcp, serial CHK0000001, firmware .+, 1 user, 1 of \d+ records, clock (in step|\d+ s (ahead|behind))/,
    );
    expect(line(text, 'hrms')).toMatch(
      /^PASS hrms: http:\/\/127\.0\.0\.1:\d+ accepted the token \(an empty test batch: nothing recorded\)/,
    );
    expect(line(text, 'journal')).toContain('quick_check ok, queue empty');
    expect(text).toMatch(/\n(all checks passed)/);
    // The token check reached the HRMS once and recorded no punch.
    expect(s.hrms.requests()).toBe(1);
    expect(s.hrms.received()).toEqual([]);
    expect(s.hrms.attendance()).toEqual([]);
    // Nothing was taken from the terminal either.
    expect(s.terminal.punches()).toHaveLength(1);
    expect(s.terminal.clearCount()).toBe(0);
    expectNoSecrets(text, json);
  });

  it('a refused token: FAIL hrms with where to put a valid one, and the token is never printed', async () => {
    const s = await site();
    writeFileSync(s.tokenPath, WRONG_TOKEN);
    const { report, text, json } = await check(s);
    expect(report.exitCode).toBe(1);
    expect(line(text, 'hrms')).toBe(
      `FAIL hrms: the HRMS refused the token (HTTP 401: Bearer token is not correct) — put a valid token in ${s.tokenPath} (or PUNCHGATE_HRMS_TOKEN); punchgate run re-reads it without a restart`,
    );
    expect(byName(report, 'terminal gate-1').status).toBe('pass');
    expect(s.hrms.received()).toEqual([]);
    expectNoSecrets(text, json);
  });

  it("a refused token read from systemd's copy (LoadCredential=): only then does the fix say to restart", async () => {
    const s = await site();
    s.writeConfig((c) => {
      delete (c.hrms as Record<string, unknown>).tokenFile;
    });
    const credentials = join(s.dir, 'credentials');
    mkdirSync(credentials);
    writeFileSync(join(credentials, 'token'), WRONG_TOKEN);
    const { text } = await check(s, { env: { CREDENTIALS_DIRECTORY: credentials } });
    expect(line(text, 'hrms')).toMatch(
      /— put a valid token in the file the unit's LoadCredential=token: names \(\/etc\/punchgate\/token\); then sudo systemctl restart punchgate, as the service does not re-read the token file \(it reads the copy LoadCredential= made at its start\)/,
    );
    expectNoSecrets(text);
  });

  it('a refused token from PUNCHGATE_HRMS_TOKEN names the variable that overrides the file', async () => {
    const s = await site();
    const { report, text } = await check(s, { env: { PUNCHGATE_HRMS_TOKEN: WRONG_TOKEN } });
    expect(byName(report, 'hrms').status).toBe('fail');
    expect(line(text, 'hrms')).toContain(`— put a valid token in PUNCHGATE_HRMS_TOKEN (it overrides ${s.tokenPath})`);
    expectNoSecrets(text);
  });

  it('no token at all: FAIL hrms saying where the token goes', async () => {
    const s = await site();
    s.writeConfig((c) => {
      (c.hrms as Record<string, unknown>).tokenFile = 'missing-token';
    });
    const { text } = await check(s);
    expect(line(text, 'hrms')).toBe(
      `FAIL hrms: no HRMS token: cannot read ${join(s.dir, 'missing-token')} (ENOENT): no such file — put the token in ${join(s.dir, 'missing-token')} (or PUNCHGATE_HRMS_TOKEN), or correct hrms.tokenFile if that name is mistyped`,
    );
    expect(s.hrms.requests()).toBe(0);
  });

  it('a token file this user may not read: FAIL hrms saying to run the check as root', async () => {
    const s = await site();
    // The installed token is root-only: as root, run the CLI as nobody; otherwise take the read bit away.
    const asRoot = process.getuid?.() === 0;
    chmodSync(s.dir, 0o755);
    chmodSync(s.configPath, 0o644);
    if (!asRoot) chmodSync(s.tokenPath, 0o000);
    const r = await runCheckCli(['--config', s.configPath, 'check'], {}, asRoot ? { uid: 65534, gid: 65534 } : {});
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      `FAIL hrms: cannot read the HRMS token file ${s.tokenPath}: permission denied — run the check as root (sudo punchgate check); the token file stays readable by root and the group punchgate only (root:punchgate 0640), which the service reads it with`,
    );
    // Run as another user, the read-only journal open is refused too, and says what to fix.
    if (asRoot)
      expect(r.stdout).toMatch(
        /\nFAIL journal: .* cannot be opened by this user \(SQLITE_[A-Z_]+\) — make .* writable for the user punchgate runs as/,
      );
    expect(s.hrms.requests()).toBe(0);
    expectNoSecrets(r.stdout, r.stderr);
  });

  it('an unreachable HRMS: FAIL hrms naming the address and what to check', async () => {
    const s = await site();
    const port = await closedPort();
    s.writeConfig((c) => {
      (c.hrms as Record<string, unknown>).baseUrl = `http://127.0.0.1:${port}`;
    });
    const { report, text } = await check(s);
    expect(report.exitCode).toBe(1);
    expect(line(text, 'hrms')).toMatch(
      new RegExp(
        `^FAIL hrms: cannot reach the HRMS at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.* — check hrms\\.baseUrl, the network route and firewall or proxy between this box and the HRMS, and that the HRMS is up$`,
      ),
    );
  });

  it('a wrong comm key: FAIL naming the config key to set, and neither key is printed', async () => {
    const s = await site({ terminal: { commKey: 1_357_911 } });
    const { report, text, json } = await check(s);
    expect(report.exitCode).toBe(1);
    expect(line(text, 'terminal gate-1')).toBe(
      `FAIL terminal gate-1: comm key refused by 127.0.0.1:${s.terminal.port} — set terminals[0].commKey to the Comm Key in the terminal's communication settings (0 when none is set there)`,
    );
    expect(byName(report, 'hrms').status).toBe('pass');
    expectNoSecrets(text, json);
  });

  it('a terminal that needs a comm key when none is configured', async () => {
    const s = await site();
    s.writeConfig((c) => {
      delete ((c.terminals as Array<Record<string, unknown>>)[0] as Record<string, unknown>).commKey;
    });
    const { text } = await check(s);
    expect(line(text, 'terminal gate-1')).toMatch(
      /^FAIL terminal gate-1: 127\.0\.0\.1:\d+ requires a comm key and none is configured — set terminals\[0\]\.commKey/,
    );
  });

  it('an unreachable terminal: FAIL with the cable/IP/single-session advice; the other terminal still passes', async () => {
    const s = await site();
    const silent = await silentServer();
    cleanups.push(() => silent.close());
    const refused = await closedPort();
    s.writeConfig((c) => {
      const ts = c.terminals as Array<Record<string, unknown>>;
      ts.push({ name: 'gate-2', kind: 'zk', host: '127.0.0.1', port: silent.port, transport: 'tcp', timeoutMs: 500 });
      ts.push({ name: 'gate-3', kind: 'zk', host: '127.0.0.1', port: refused, transport: 'tcp', timeoutMs: 500 });
      ts.push({ name: 'gate-4', kind: 'zk', host: '127.0.0.1', port: refused, enabled: false });
    });
    const started = Date.now();
    const { report, text } = await check(s);
    // Their 500 ms timeouts, not the 10 s default; room for a loaded CI box.
    expect(Date.now() - started).toBeLessThan(9000);
    expect(report.exitCode).toBe(1);
    expect(byName(report, 'terminal gate-1').status).toBe('pass');
    expect(line(text, 'terminal gate-2')).toBe(
      `FAIL terminal gate-2: no answer from 127.0.0.1:${silent.port} within 0.5 s — check the cable/power, the IP address (terminals[1].host), and that nothing else holds the terminal's single TCP session`,
    );
    expect(line(text, 'terminal gate-3')).toBe(
      `FAIL terminal gate-3: 127.0.0.1:${refused} refused the connection — check terminals[2].host and terminals[2].port (4370 unless changed on the terminal), and that nothing else holds the terminal's single TCP session`,
    );
    // A disabled terminal is not contacted.
    expect(report.checks.map((c) => c.name)).not.toContain('terminal gate-4');
    expect(line(text, 'config')).toContain('3 terminals enabled, 1 disabled');
  });

  it('an address edited but not reloaded: check judges the file, and says punchgate run still polls the old one', async () => {
    const s = await site();
    const refused = await closedPort();
    const journal = Journal.open({ path: s.journalPath, site: 'chk', mode: 'shared' });
    journal.terminals.update('gate-1', { online: true, lastSuccessAt: Date.now() - 20_000 });
    journal.close();
    // punchgate run loaded the config with the simulator's address (it keeps that copy) ...
    s.writeConfig((c) => ((c.terminals as Array<Record<string, unknown>>)[0]!.realtime = true));
    saveLastGood(s.journalPath, s.configPath, readFileSync(s.configPath, 'utf8'), Date.now() - 60_000);
    // ... then the admin edits the port, and runs check before the reload.
    s.writeConfig((c) => {
      const t = (c.terminals as Array<Record<string, unknown>>)[0]!;
      Object.assign(t, { realtime: true, port: refused, timeoutMs: 300 });
    });
    const lock = OwnerLock.acquire(s.journalPath);
    try {
      const failed = line((await check(s)).text, 'terminal gate-1');
      expect(failed).toMatch(new RegExp(`^FAIL terminal gate-1: 127\\.0\\.0\\.1:${refused} refused the connection`));
      // "reached it just now" was about the old address.
      expect(failed).not.toContain('reached it');
      expect(failed).toContain(
        `; punchgate run still polls the address it loaded, 127.0.0.1:${s.terminal.port}, until it reloads the config — `,
      );
      expect(failed).toContain('correct terminals[0].host/port first');
      // An edit to an address that answers: a warning until the reload, not a silent pass.
      s.writeConfig((c) => ((c.terminals as Array<Record<string, unknown>>)[0]!.port = refused));
      saveLastGood(s.journalPath, s.configPath, readFileSync(s.configPath, 'utf8'), Date.now());
      s.writeConfig();
      const moved = line((await check(s)).text, 'terminal gate-1');
      expect(moved).toMatch(/^WARN terminal gate-1: /);
      expect(moved).toContain(`punchgate run still polls 127.0.0.1:${refused} until it reloads the config`);
      expect(moved).toContain(`sudo systemctl reload punchgate so that it polls 127.0.0.1:${s.terminal.port}`);
    } finally {
      lock.release();
    }
  });

  it('a real-time terminal that the running punchgate run reached a minute ago: the failure says the daemon may hold its only session; stopped, it does not', async () => {
    const s = await site();
    const silent = await silentServer();
    cleanups.push(() => silent.close());
    const journal = Journal.open({ path: s.journalPath, site: 'chk', mode: 'shared' });
    journal.terminals.update('gate-2', { online: true, lastSuccessAt: Date.now() - 60_000 });
    journal.terminals.update('gate-3', { online: true, lastSuccessAt: Date.now() - 3 * 3600_000 });
    journal.terminals.update('gate-4', { online: true, lastSuccessAt: Date.now() - 20_000 });
    journal.close();
    s.writeConfig((c) => {
      const ts = c.terminals as Array<Record<string, unknown>>;
      ts.push({
        name: 'gate-2',
        kind: 'zk',
        host: '127.0.0.1',
        port: silent.port,
        transport: 'tcp',
        timeoutMs: 300,
        realtime: true,
      });
      ts.push({
        name: 'gate-3',
        kind: 'zk',
        host: '127.0.0.1',
        port: silent.port,
        transport: 'tcp',
        timeoutMs: 300,
        realtime: true,
      });
      ts.push({ ...ts[ts.length - 1], name: 'gate-4' });
    });
    // punchgate run runs on this config: it holds the journal's lock and the copy it loaded.
    saveLastGood(s.journalPath, s.configPath, readFileSync(s.configPath, 'utf8'), Date.now());
    const lock = OwnerLock.acquire(s.journalPath);
    let text: string;
    try {
      text = (await check(s)).text;
    } finally {
      lock.release();
    }
    // Reached 20 s ago: "just now", as the page says it, never "0 min ago" (a new-admin trial).
    expect(line(text, 'terminal gate-4')).toContain('; punchgate run reached it just now — ');
    expect(line(text, 'terminal gate-2')).toBe(
      `FAIL terminal gate-2: no answer from 127.0.0.1:${silent.port} within 0.3 s; punchgate run reached it 1 min ago — punchgate run holds a real-time session with it (terminals[1].realtime: true) and many terminals allow only one: if punchgate status shows it online, nothing is wrong; otherwise check the cable/power, the IP address (terminals[1].host), and that nothing else holds the terminal's single TCP session`,
    );
    // Seen three hours ago: no excuse.
    expect(line(text, 'terminal gate-3')).toBe(
      `FAIL terminal gate-3: no answer from 127.0.0.1:${silent.port} within 0.3 s — check the cable/power, the IP address (terminals[2].host), and that nothing else holds the terminal's single TCP session`,
    );

    // punchgate run stopped a minute ago: it holds no session, and the status log it left still
    // says online: the plain failure, never "nothing is wrong" (a new admin's port typo was
    // excused so, found by a new-user trial).
    const stopped = (await check(s)).text;
    for (const [name, i] of [
      ['gate-2', 1],
      ['gate-4', 3],
    ] as const) {
      expect(line(stopped, `terminal ${name}`)).toBe(
        `FAIL terminal ${name}: no answer from 127.0.0.1:${silent.port} within 0.3 s — check the cable/power, the IP address (terminals[${i}].host), and that nothing else holds the terminal's single TCP session`,
      );
    }
  });

  it("reads the box clock in the terminal's time zone, and warns (not fails) about a skewed clock", async () => {
    const zone = 'Asia/Kolkata';
    const s = await site({ terminal: { clock: () => wallClockAt(Date.now(), zone) } });
    s.writeConfig((c) => {
      ((c.terminals as Array<Record<string, unknown>>)[0] as Record<string, unknown>).timezone = zone;
    });
    const inStep = await check(s);
    expect(line(inStep.text, 'terminal gate-1')).toMatch(
      /^PASS .*clock (in step|[1-5] s (ahead|behind)) \(Asia\/Kolkata\)$/,
    );

    const behind = await site({ terminal: { clock: () => wallClockAt(Date.now() - 7 * 60_000, zone) } });
    behind.writeConfig((c) => {
      ((c.terminals as Array<Record<string, unknown>>)[0] as Record<string, unknown>).timezone = zone;
    });
    const late = await check(behind);
    expect(late.report.exitCode).toBe(0);
    expect(line(late.text, 'terminal gate-1')).toMatch(
      /^WARN terminal gate-1: .*; the terminal clock is 7 min( \d+ s)? behind — set the terminal's clock, or set terminals\[0\]\.syncClock: true so that punchgate run sets it at each poll$/,
    );

    // The in-step terminal read as if it were in UTC: 5 h 30 min apart points at the zone setting.
    s.writeConfig((c) => {
      ((c.terminals as Array<Record<string, unknown>>)[0] as Record<string, unknown>).timezone = 'UTC';
    });
    const mismatch = await check(s);
    expect(line(mismatch.text, 'terminal gate-1')).toMatch(
      /^WARN terminal gate-1: .*clock 5 h 30 min ahead \(UTC\); the terminal clock is 5 h 30 min ahead — a difference of whole hours usually means a time zone mismatch: set terminals\[0\]\.timezone to the zone the terminal's clock shows \(now UTC\), or correct the terminal's clock$/,
    );
  });

  it('a bad config: the path: message lines, and exit 78 (1 with --quick)', async () => {
    const s = await site();
    s.writeConfig((c) => {
      delete ((c.terminals as Array<Record<string, unknown>>)[0] as Record<string, unknown>).host;
      (c as Record<string, unknown>).delivery = { batchSize: 0 };
    });
    const r = await runCheckCli(['--config', s.configPath, 'check']);
    expect(r.status).toBe(78);
    expect(r.stdout).toContain(
      `FAIL config: ${s.configPath} cannot be used (2 problems) — correct the lines below in ${s.configPath}, then run punchgate check again`,
    );
    expect(r.stdout).toMatch(
      /\n {2}\S+punchgate\.yaml:\d+: terminals\[0\] \(gate-1\)\.host: is required: the terminal's IP address or host name \(e\.g\. 192\.168\.1\.201\)\n/,
    );
    expect(r.stdout).toMatch(
      /\n {2}\S+punchgate\.yaml:\d+: delivery\.batchSize: must be at least 1, got the number 0\n/,
    );
    expect(s.hrms.requests()).toBe(0);

    const quick = await runCheckCli(['check', '--quick', '--config', s.configPath]);
    expect(quick.status).toBe(1);
  });

  it('runs as a CLI: text and --json, exit 0 when all pass, 1 when one fails; secrets never printed', async () => {
    const s = await site();
    const ok = await runCheckCli(['--config', s.configPath, 'check', '--json']);
    expect(ok.stderr).toBe('');
    expect(ok.status, ok.stdout).toBe(0);
    const report = JSON.parse(ok.stdout) as CheckReport;
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.name === 'hrms')?.status).toBe('pass');

    const bad = await runCheckCli(['--config', s.configPath, 'check'], { PUNCHGATE_HRMS_TOKEN: WRONG_TOKEN });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('FAIL hrms: the HRMS refused the token');
    expectNoSecrets(ok.stdout, ok.stderr, bad.stdout, bad.stderr);
  });
});

describe('punchgate check --quick (container health check)', () => {
  it('knows whether punchgate run runs from its journal lock, not from the age of the status log, without any network', async () => {
    const s = await site();
    const statusPath = join(s.dir, 'status.txt');
    // A status log written a moment ago by a daemon that has stopped since: not running.
    writeFileSync(statusPath, 'status\n');
    const stopped = await check(s, { quick: true });
    expect(stopped.report.exitCode).toBe(1);
    expect(line(stopped.text, 'daemon')).toMatch(
      /^FAIL daemon: punchgate run is not running: nothing holds the journal lock \S+journal\.db\.lock \(status log written \d+ s ago\) — start it: sudo systemctl start punchgate/,
    );
    // The daemon holds the journal's owner lock for its whole life.
    const lock = OwnerLock.acquire(s.journalPath);
    try {
      const running = await check(s, { quick: true });
      expect(running.report.exitCode).toBe(0);
      expect(running.report.checks.map((c) => `${c.status} ${c.name}`)).toEqual([
        'pass config',
        'pass journal',
        'pass daemon',
      ]);
      expect(line(running.text, 'daemon')).toMatch(
        new RegExp(
          `^PASS daemon: punchgate run is running \\(pid ${process.pid} holds the journal lock\\), status log written \\d+ s ago`,
        ),
      );
      expect(s.hrms.requests()).toBe(0);
      expect(s.terminal.sessions()).toBe(0);
      // Holding the lock but no longer rewriting the status log: stuck.
      const old = (Date.now() - 10 * 60_000) / 1000;
      utimesSync(statusPath, old, old);
      const stuck = await check(s, { quick: true });
      expect(stuck.report.exitCode).toBe(1);
      expect(line(stuck.text, 'daemon')).toMatch(
        /^FAIL daemon: punchgate run holds the journal lock but has not rewritten its status log \S+status\.txt for 6\d\d s \(expected every 60 s\): it is stuck — /,
      );
    } finally {
      lock.release();
    }
    // The full check says it too, as a warning (it often runs before the first start).
    const full = await check(s);
    expect(line(full.text, 'daemon')).toMatch(/^WARN daemon: punchgate run is not running/);

    const none = await site({ journal: false });
    const missing = await check(none, { quick: true });
    expect(missing.report.exitCode).toBe(1);
    expect(line(missing.text, 'journal')).toContain('does not exist: punchgate run has not started');
  });
});

describe('journal, disk, serial and notify checks', () => {
  it('a missing journal is a warning before the first start; a damaged one fails', async () => {
    const s = await site({ journal: false });
    const { report, text } = await check(s);
    expect(byName(report, 'journal').status).toBe('warn');
    expect(line(text, 'journal')).toContain('does not exist yet: punchgate run creates it at its first start');
    expect(report.exitCode).toBe(0);

    writeFileSync(s.journalPath, 'this is not a database, just some text that fills a page '.repeat(100));
    const damaged = await check(s);
    expect(damaged.report.exitCode).toBe(1);
    expect(line(damaged.text, 'journal')).toMatch(
      /^FAIL journal: .*journal\.db is not a SQLite database \(SQLITE_NOTADB\) — point journal\.path at the punchgate journal; if this is it, it is damaged: /,
    );
  });

  it('the check opens the journal read-only: it never creates one', async () => {
    const s = await site({ journal: false });
    await check(s);
    await check(s, { quick: true });
    expect(existsSync(s.journalPath)).toBe(false);
  });

  it('disk space: pass, warn and fail thresholds', () => {
    const fake = (free: number) =>
      (() => ({ bavail: free / 4096, bsize: 4096 })) as unknown as typeof import('node:fs').statfsSync;
    // A journal in a folder not made yet: the space is the nearest existing folder's (a fixed name
    // such as /tmp/x may exist on the machine running the test).
    const tmp = tempDir('punchgate-disk-');
    const journal = join(tmp.dir, 'not-made-yet', 'journal.db');
    expect(checkDisk(journal, fake(10 * 1024 ** 3)).status).toBe('pass');
    const low = checkDisk(journal, fake(100 * 1024 ** 2));
    expect(low.status).toBe('warn');
    expect(low.detail).toBe(`only 100 MiB free at ${tmp.dir}`);
    const full = checkDisk(journal, fake(4 * 1024 ** 2));
    expect(full.status).toBe('fail');
    expect(full.fix).toContain('journalctl --vacuum-size');
    // The daemon's own figures of its disk syncs (status.json): slow is a warning with the status's words.
    const slow = checkDisk(journal, fake(10 * 1024 ** 3), { syncs: 30, p90Ms: 700, maxMs: 1900, windowMinutes: 10 });
    expect(slow.status).toBe('warn');
    expect(slow.detail).toBe(
      `10.0 GiB free at ${tmp.dir}, but the journal's disk is slow: one sync in ten took 0.7 s or more in the last 10 min (30 syncs, the slowest 1.9 s; a healthy SD card takes under 0.05 s): punches are kept, but push terminals wait that long for each OK`,
    );
    expect(slow.fix).toMatch(/^a worn SD card or a failing disk does this: look at the kernel log/);
    const fast = checkDisk(journal, fake(10 * 1024 ** 3), { syncs: 30, p90Ms: 4, maxMs: 900, windowMinutes: 10 });
    expect(fast).toMatchObject({
      status: 'pass',
      detail: `10.0 GiB free at ${tmp.dir}; nine syncs in ten took 0.00 s or less over the last 10 min`,
    });
    tmp.cleanup();
  });

  it('serial terminals: a real pseudo-terminal opens; a missing device and a plain file fail with the fix', async () => {
    const s = await site();
    const pair = await createPtyPair(join(s.dir, 'ttyV0'));
    cleanups.push(() => pair.close());
    const plain = join(s.dir, 'not-a-tty');
    writeFileSync(plain, '');
    s.writeConfig((c) => {
      c.terminals = [
        { name: 'door', kind: 'serial', path: pair.devicePath, format: 'card', baudRate: 9600 },
        { name: 'door-2', kind: 'serial', path: join(s.dir, 'ttyUSB9'), format: 'card' },
        { name: 'door-3', kind: 'serial', path: plain, format: 'card' },
      ];
    });
    const { text } = await check(s);
    expect(line(text, 'terminal door')).toMatch(
      new RegExp(
        `^PASS terminal door: ${pair.devicePath.replace(/[.]/g, '\\.')} opens at 9600 baud \\(group \\w+, mode \\d+\\)$`,
      ),
    );
    expect(line(text, 'terminal door-2')).toBe(
      `FAIL terminal door-2: no such device ${join(s.dir, 'ttyUSB9')} — plug in the adapter and check that it appears (ls -l /dev/serial/by-id/); prefer that stable by-id path in terminals[1].path`,
    );
    expect(line(text, 'terminal door-3')).toContain(
      `FAIL terminal door-3: ${plain} is not a serial device — set terminals[2].path`,
    );
  });

  it('a serial device this user may not open: the dialout fix', async () => {
    const s = await site();
    s.writeConfig((c) => {
      c.terminals = [{ name: 'door', kind: 'serial', path: '/dev/null', format: 'card' }];
    });
    // /dev/null is a character device anyone may open; the refusal comes from the opener, as the kernel would give it.
    const denied = await check(s, {
      openSerial: async () => {
        throw new Error('Error: Permission denied, cannot open /dev/null');
      },
    });
    expect(line(denied.text, 'terminal door')).toMatch(
      /^FAIL terminal door: permission denied opening \/dev\/null \(group \w+, mode 666\) — .*SupplementaryGroups=dialout.*usermod -aG dialout/,
    );
    const held = await check(s, {
      openSerial: async () => {
        throw new Error('Error Resource temporarily unavailable Cannot lock port');
      },
    });
    expect(byName(held.report, 'terminal door').status).toBe('warn');
    expect(held.report.exitCode).toBe(0);
  });

  it('systemd notify: fails without unix-dgram on a systemd box, warns elsewhere', () => {
    const load = () => {
      throw new Error("Cannot find module 'unix-dgram'");
    };
    const onSystemd = checkNotify({ load, systemdBooted: () => true });
    expect(onSystemd.status).toBe('fail');
    expect(onSystemd.detail).toContain('would never report ready');
    expect(onSystemd.fix).toContain('build-essential');
    expect(checkNotify({ load, systemdBooted: () => false }).status).toBe('warn');
  });

  it('describes clock skew in plain words', () => {
    expect(describeSkew(0.4)).toBe('in step');
    // A second either way is the reading's own error (whole seconds, read over the network).
    expect(describeSkew(-1)).toBe('in step');
    expect(describeSkew(1.4)).toBe('in step');
    expect(describeSkew(2)).toBe('2 s ahead');
    expect(describeSkew(12)).toBe('12 s ahead');
    expect(describeSkew(-303)).toBe('5 min 3 s behind');
    expect(describeSkew(-7200)).toBe('2 h behind');
    expect(describeSkew(5400)).toBe('1 h 30 min ahead');
  });
});
