/**
 * The amd64 package as a site admin meets it (issue 26), on this machine, as root: apt installs
 * it, the installed binary runs on its own runtime, `punchgate check` passes, the demo delivers
 * (install-to-first-punch), 300 punches go from a simulated terminal through `punchgate run` to a
 * simulated HRMS, an upgrade to a rebuilt package with a bumped version while the daemon runs keeps
 * the config edits and the pending punches (the restart's time printed; bench/package.ts holds it to
 * the issue's 5 s), and a purge keeps every journal that still holds undelivered punches (a
 * journal.db.before-restore-* kept aside too) and every backup, naming their paths and counts,
 * which a reinstall then delivers. The config is root:punchgate 0640 (it may hold credentials),
 * the nightly backup's unit and folder come with the package and its command runs. The service
 * user plants links to a root file and a FIFO in its folder before each removal (issue 30): no
 * maintainer script follows them, the root file stays as it was. The tarball's install.sh
 * installs and purges the same files.
 *
 * There is no systemd here (no PID 1 systemd in CI's container): the package says so and how to
 * start punchgate, and the test starts `punchgate run` itself, as the service user, as the unit
 * would; the upgrade's restart (systemd's try-restart in postinst) is done the same way.
 * Cleans up after itself: the package purged, the user and its folders removed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aptInstall,
  asService,
  cleanMachine,
  CLI_STEP_MS,
  demoFirstDelivery,
  dpkg,
  DPKG_STEP_MS,
  isRoot,
  leftovers,
  packageStatus,
  SERVICE_ENV,
  serviceUser,
  sh,
  shAsync,
  start,
  STATE,
  stop,
  type Proc,
} from '../../bench/lib/package-box.js';
import { freePort } from '../../bench/lib/ports.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { debOf, requireBuilt, RUNTIME, tarballOf, VERSION } from './files.js';

const ROOT = isRoot();
if (!ROOT) {
  process.stdout.write(
    'test/package/install.test.ts: skipped: installing the package needs root (it adds a system user and files in /usr, /etc, /var); CI runs it as root\n',
  );
}

const BUMPED = `${VERSION}+test1`;
const CONFIG = '/etc/punchgate/punchgate.yaml';
const TOKEN = '/etc/punchgate/token';
const TOKEN_VALUE = 'package-test-token';
const installed = packageStatus;
const configMode = () => {
  const st = statSync(CONFIG);
  return { mode: st.mode & 0o777, uid: st.uid, gid: st.gid };
};
/** The packaged backup unit's command, as systemd would run it (ExecStart= of the installed unit). */
const backupCommand = () => {
  const unit = readFileSync('/usr/lib/systemd/system/punchgate-backup.service', 'utf8');
  return /^ExecStart=(.*)$/m.exec(unit)![1]!.split(' ');
};

/** Whether nothing listens on a loopback port now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A log time `minutesAgo` before now, UTC (the tests run with TZ=UTC), as terminals write them. */
function logTime(minutesAgo: number): string {
  return new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 19).replace('T', ' ');
}

describe.skipIf(!ROOT)('the amd64 package installed on this machine', () => {
  const tmp = tempDir('punchgate-install-');
  let ports: { hrms: number; zk: number; page: number };
  let hrmsSim: Proc;
  let daemon: Proc;
  let user: { uid: number; gid: number };
  let bumpedDeb: string;
  /** What the run measured, printed at the end (bench/package.ts measures them for BENCHMARKS.md). */
  const figures: Record<string, string> = {};

  /**
   * The HRMS simulator's admin API, a connection per request: the steps are seconds apart, and a
   * kept-alive connection the server closed meanwhile would fail the next request.
   */
  const noKeepAlive = new Agent({ pipelining: 0 });
  const hrms = async (path: string, body?: unknown) => {
    const res = await request(`http://127.0.0.1:${ports.hrms}/__sim/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: noKeepAlive,
    });
    return res.body.json();
  };
  const atHrms = async () => {
    const rows = (await hrms('attendance')) as Array<{ biometriccode: string; logDate: string }>;
    expect(new Set(rows.map((r) => `${r.biometriccode} ${r.logDate}`)).size, 'no punch twice at the HRMS').toBe(
      rows.length,
    );
    return rows.length;
  };
  /** /readyz of the running daemon: a punch can be journalled now. */
  const ready = async () => {
    try {
      const res = await request(`http://127.0.0.1:${ports.page}/readyz`, {
        dispatcher: noKeepAlive,
        headersTimeout: 1000,
        bodyTimeout: 1000,
      });
      await res.body.text();
      return res.statusCode === 200;
    } catch {
      return false;
    }
  };
  const undelivered = () => asService(['punches', '--state', 'undelivered', '--count']);
  /** Punches of a USB export, imported beside the running daemon: pending while the HRMS fails. */
  const importPunches = (name: string, codes: number[]) => {
    const csv = join(tmp.dir, `${name}.csv`);
    writeFileSync(csv, ['biometriccode,logDate', ...codes.map((c, i) => `${c},${logTime(30 + i)}`)].join('\n') + '\n');
    sh('chmod', ['0644', csv]);
    const r = asService(['import', csv]);
    expect(r.status, r.all).toBe(0);
  };
  const startDaemon = () => start('/usr/bin/punchgate', ['run', '--config', CONFIG], user);
  /** The site's config: the simulated terminal and HRMS, quick retries (an admin's edit of the conffile). */
  const siteConfig = () =>
    [
      '# edited by the package test: this edit must survive the upgrade',
      'site: pkgtest',
      'journal:',
      `  path: ${STATE}/journal.db`,
      'hrms:',
      `  baseUrl: http://127.0.0.1:${ports.hrms}`,
      `  tokenFile: ${TOKEN}`,
      'delivery:',
      '  batchSize: 100',
      '  pollIntervalMs: 200',
      '  retry: { baseMs: 200, maxMs: 1000 }',
      'status:',
      `  listen: 127.0.0.1:${ports.page}`,
      'terminals:',
      '  - name: gate-1',
      '    kind: zk',
      '    host: 127.0.0.1',
      `    port: ${ports.zk}`,
      '    transport: tcp',
      '    schedule: "*/2 * * * * *"',
      '    timezone: UTC',
      '',
    ].join('\n');

  beforeAll(async () => {
    requireBuilt();
    const found = leftovers();
    if (found.length > 0) {
      throw new Error(
        `this machine already has ${found.join(', ')}: the test installs and removes punchgate, run it where there is none (CI)`,
      );
    }
    ports = { hrms: await freePort(), zk: await freePort(), page: await freePort() };
    sh('chmod', ['0755', tmp.dir]);
    // The package to upgrade to: the same sources, a higher version (the compiled modules come from
    // the cache; dist/ is the build the packages under test were made from, npm run package).
    const out = join(tmp.dir, 'bumped');
    const r = sh('node', [
      'dist/packaging/build.js',
      '--arch',
      'amd64',
      '--no-tarball',
      '--version',
      BUMPED,
      '--out',
      out,
    ]);
    expect(r.status, r.all).toBe(0);
    bumpedDeb = debOf('amd64', BUMPED, out);
    expect(existsSync(bumpedDeb)).toBe(true);
  });

  afterAll(() => {
    cleanMachine();
    tmp.cleanup();
    if (Object.keys(figures).length > 0) {
      process.stdout.write(
        `package figures (BENCHMARKS.md):\n${Object.entries(figures)
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n')}\n`,
      );
    }
  });

  it('apt installs it: the user (in dialout), an empty token 0640 root:punchgate, the journal folder; it says the next steps and that systemd is not running here', () => {
    const r = aptInstall(debOf('amd64'));
    expect(r.status, r.all).toBe(0);
    expect(installed()).toBe('install ok installed');
    expect(r.all).toContain('punchgate is installed. Next:');
    expect(r.all).toContain(`sudo -u punchgate punchgate check`);
    expect(r.all).toMatch(
      /systemd is not running on this box[\s\S]*runuser -u punchgate -- punchgate run --config \/etc\/punchgate\/punchgate\.yaml/,
    );

    const id = sh('id', ['punchgate']);
    expect(id.status).toBe(0);
    expect(id.out).toMatch(/groups=.*\(dialout\)/);
    user = serviceUser();
    const token = statSync(TOKEN);
    expect({ mode: token.mode & 0o777, uid: token.uid, gid: token.gid, size: token.size }).toEqual({
      mode: 0o640,
      uid: 0,
      gid: user.gid,
      size: 0,
    });
    const state = statSync(STATE);
    expect({ mode: state.mode & 0o777, uid: state.uid }).toEqual({ mode: 0o750, uid: user.uid });
    // The nightly backup's folder, made as the service user; the config may hold credentials.
    const backups = statSync(`${STATE}/backups`);
    expect({ mode: backups.mode & 0o777, uid: backups.uid, gid: backups.gid }).toEqual({
      mode: 0o750,
      uid: user.uid,
      gid: user.gid,
    });
    expect(configMode()).toEqual({ mode: 0o640, uid: 0, gid: user.gid });
    expect(sh('dpkg-statoverride', ['--list', CONFIG]).out.trim()).toBe(`root punchgate 640 ${CONFIG}`);
    // The backup timer ships, disabled (nothing links it into timers.target.wants).
    for (const f of ['punchgate-backup.service', 'punchgate-backup.timer'])
      expect(existsSync(`/usr/lib/systemd/system/${f}`), f).toBe(true);
    expect(existsSync('/etc/systemd/system/timers.target.wants/punchgate-backup.timer')).toBe(false);
    expect(r.all).toContain('runuser -u punchgate -- punchgate backup /var/lib/punchgate/backups --keep 14');
  });

  it("punchgate --version: punchgate's version on the package's own runtime (not this machine's node)", () => {
    const r = sh('punchgate', ['--version'], { env: SERVICE_ENV });
    expect(r.status, r.all).toBe(0);
    expect(r.out).toBe(`punchgate ${VERSION} (Node v${RUNTIME})\n`);
    expect(`v${RUNTIME}`).not.toBe(process.version);
    expect(sh('man', ['-w', 'punchgate']).out.trim()).toBe('/usr/share/man/man1/punchgate.1.gz');
  });

  it('punchgate demo delivers, and as a user it runs the shipped demo from a temporary folder: nothing is written into /usr/lib/punchgate', async () => {
    const demo = await demoFirstDelivery('/usr/bin/punchgate', '/usr/lib/punchgate', join(tmp.dir, 'demo'));
    expect(demo.exit, demo.output).toBe(0);

    // As the admin runs it, as a user: the shipped config, on a copy in a temporary folder (the
    // program folder is not writable, and no place for data), removed when the demo ends.
    const shippedPorts = [18080, 18081, 18082, 18083, 9330, 14370];
    if (!(await Promise.all(shippedPorts.map(portFree))).every(Boolean)) {
      process.stdout.write(
        `the shipped demo's ports ${shippedPorts.join(', ')} are taken here: its plain run is not tried\n`,
      );
    } else {
      const plain = start('/usr/bin/punchgate', ['demo', '--punch-every', '1'], user);
      await waitFor(
        () =>
          /delivered \d+ punch(es)? to the HRMS|sent \d+ punch(es)? to the HRMS: [1-9]\d* delivered/.test(
            plain.output(),
          ),
        60_000,
        `the shipped demo:\n${plain.output()}`,
      );
      const folder = /the demo's journal and status log are in (\/tmp\/punchgate-demo-\S+) until it ends/.exec(
        plain.output(),
      )?.[1];
      expect(folder, plain.output()).toBeDefined();
      expect(existsSync(join(folder!, '.demo', 'journal.db'))).toBe(true);
      plain.child.kill('SIGINT');
      expect(await plain.exited, plain.output()).toBe(0);
      expect(existsSync(folder!)).toBe(false);
    }
    expect(readdirSync('/usr/lib/punchgate').sort()).toEqual(['bin', 'config', 'dist', 'node_modules', 'package.json']);
  });

  it('punchgate check passes as the service user, then punchgate run delivers 300 punches from a simulated terminal to a simulated HRMS', async () => {
    writeFileSync(CONFIG, siteConfig());
    writeFileSync(TOKEN, `${TOKEN_VALUE}\n`);
    hrmsSim = start('/usr/bin/punchgate', ['sim', 'hrms', '--port', String(ports.hrms), '--token', TOKEN_VALUE]);
    const terminal = start('/usr/bin/punchgate', [
      'sim',
      'terminal',
      '--port',
      String(ports.zk),
      '--no-udp',
      '--users',
      '10',
      '--punches',
      '300',
    ]);
    await waitFor(
      () => /listening/.test(hrmsSim.output()) && /listening/.test(terminal.output()),
      30_000,
      'the simulators',
    );

    const check = asService(['check']);
    expect(check.status, check.all).toBe(0);
    expect(check.out.split('\n')[0]).toBe(`punchgate ${VERSION} check (Node v${RUNTIME})`);

    daemon = startDaemon();
    await waitFor(
      async () => (await atHrms()) === 300,
      120_000,
      `300 punches at the HRMS (daemon:\n${daemon.output().slice(-3000)})`,
    );
    expect(undelivered().out).toBe('0\n');
    // The installed runtime, with the unit's memory settings (the launcher's).
    expect(sh('readlink', [`/proc/${daemon.child.pid}/exe`]).out.trim()).toBe('/usr/lib/punchgate/bin/node');
    const environ = readFileSync(`/proc/${daemon.child.pid}/environ`, 'utf8').split('\0');
    expect(environ).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=32768']));
    const argv = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8').split('\0');
    expect(argv.slice(0, 4)).toEqual([
      '/usr/lib/punchgate/bin/node',
      '--optimize-for-size',
      '--max-semi-space-size=4',
      '/usr/lib/punchgate/dist/punchgate.js',
    ]);

    // The nightly backup's own command (the installed unit's ExecStart=, /usr/bin/punchgate the
    // shell launcher here), as its user, beside the running daemon, into the folder the package made.
    const [cmd, ...args] = backupCommand();
    expect(cmd).toBe('/usr/bin/punchgate');
    const backup = sh('runuser', ['-u', 'punchgate', '--', cmd!, ...args], {
      env: SERVICE_ENV,
      timeoutMs: CLI_STEP_MS,
    });
    expect(backup.status, backup.all).toBe(0);
    const written = readdirSync(`${STATE}/backups`);
    expect(written).toHaveLength(1);
    expect(statSync(`${STATE}/backups/${written[0]}`).mode & 0o777).toBe(0o600);
  });

  it('an upgrade to a rebuilt package while the daemon runs: it answers throughout dpkg, then one restart on the new files; config edits and pending punches survive', async () => {
    // The HRMS is down (503): 50 punches wait in the journal.
    await hrms('faults', { errorRate: 1 });
    importPunches(
      'before-upgrade',
      Array.from({ length: 50 }, (_, i) => 7000 + i),
    );
    expect(undelivered().out).toBe('50\n');
    const config = readFileSync(CONFIG, 'utf8');

    // The service answers throughout dpkg's work: the old process runs on until it is restarted.
    const probes: Array<{ at: number; ok: boolean }> = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        probes.push({ at: Date.now(), ok: await ready() });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const upgrade = await shAsync('dpkg', ['-i', bumpedDeb], { timeoutMs: DPKG_STEP_MS });
    expect(upgrade.status, upgrade.all).toBe(0);
    expect(upgrade.all).toContain(
      `punchgate: upgraded from ${VERSION}. A punchgate run started by hand still runs the old version: restart it.`,
    );
    expect(probes.length).toBeGreaterThan(0);
    expect(
      probes.filter((p) => !p.ok),
      'not ready while dpkg replaced the files',
    ).toEqual([]);

    // The restart systemd's try-restart does in postinst: stop, start on the new files.
    const restart = Date.now();
    expect(await stop(daemon), daemon.output().slice(-2000)).toBe(0);
    const stopped = Date.now();
    daemon = startDaemon();
    await waitFor(ready, 30_000, `the new daemon to be ready (${daemon.output().slice(-2000)})`);
    const back = Date.now();
    probing = false;
    await prober;
    figures['upgrade: stop + start until ready'] =
      `${((back - restart) / 1000).toFixed(2)} s (stop ${((stopped - restart) / 1000).toFixed(2)} s)`;

    expect(sh('punchgate', ['--version'], { env: SERVICE_ENV }).out).toBe(`punchgate ${BUMPED} (Node v${RUNTIME})\n`);
    const status = (await (await fetch(`http://127.0.0.1:${ports.page}/status.json`)).json()) as { version: string };
    expect(status.version).toBe(BUMPED);
    expect(readFileSync(CONFIG, 'utf8')).toBe(config);
    expect(configMode()).toEqual({ mode: 0o640, uid: 0, gid: user.gid });
    expect(readFileSync(TOKEN, 'utf8')).toBe(`${TOKEN_VALUE}\n`);
    expect(undelivered().out).toBe('50\n');
    await hrms('faults', { errorRate: 0 });
    await waitFor(async () => (await atHrms()) === 350, 60_000, '350 punches at the HRMS after the upgrade');
  });

  /** A root file outside the service user's folders, that a link planted in them points at. */
  const victim = () => join(tmp.dir, 'root-owned.txt');
  const VICTIM_TEXT = 'root owns this; no maintainer script may write it\n';
  const victimUnchanged = () => {
    expect(readFileSync(victim(), 'utf8')).toBe(VICTIM_TEXT);
    expect(statSync(victim()).uid).toBe(0);
  };
  /** As the service user (who owns /var/lib/punchgate): what an attacker with its rights can do there. */
  const plant = (cmd: string, args: string[]) => {
    const r = sh('runuser', ['-u', 'punchgate', '--', cmd, ...args], { env: SERVICE_ENV, timeoutMs: CLI_STEP_MS });
    expect(r.status, r.all).toBe(0);
  };

  it('a purge while the journal holds undelivered punches, with links and a FIFO planted by the service user: the config goes, the journal stays, the message names its path and the count, no root file is touched', async () => {
    writeFileSync(victim(), VICTIM_TEXT);
    sh('chmod', ['0644', victim()]);
    await hrms('faults', { errorRate: 1 });
    importPunches(
      'before-purge',
      Array.from({ length: 20 }, (_, i) => 8000 + i),
    );
    expect(undelivered().out).toBe('20\n');
    // Removing a package stops its service first (prerm); here the daemon is ours to stop.
    expect(await stop(daemon)).toBe(0);
    // Where an older prerm wrote its note as root, and names a removal might look at: links to a
    // root file; a FIFO where a kept-aside journal would be (reading it would hang the removal).
    plant('ln', ['-s', victim(), `${STATE}/undelivered-at-removal`]);
    plant('ln', ['-s', victim(), `${STATE}/journal.db.before-restore-20261101T000000Z`]);
    plant('ln', ['-s', victim(), `${STATE}/status.txt.tmp`]);
    plant('mkfifo', [`${STATE}/journal.db.before-restore-20261102T000000Z`]);
    const r = dpkg(['--purge', 'punchgate']);
    expect(r.status, r.all).toBe(0);
    expect(r.all).toContain(
      `punchgate: the journal ${STATE}/journal.db holds 20 undelivered punches: ${STATE} is kept, also on purge.`,
    );
    expect(r.all).toContain(`punchgate: kept ${STATE}, which holds attendance records:`);
    expect(r.all).toContain(`  ${STATE}/journal.db: a journal holding 20 undelivered punches`);
    expect(installed()).toBe('');
    for (const gone of ['/usr/bin/punchgate', '/usr/lib/punchgate', '/etc/punchgate'])
      expect(existsSync(gone), gone).toBe(false);
    expect(existsSync(`${STATE}/journal.db`)).toBe(true);
    victimUnchanged();
    expect(existsSync('/run/punchgate-removal.counts')).toBe(false);
  });

  it('a purge keeps a kept-aside journal that holds undelivered punches and every backup, though journal.db holds none, and says where', async () => {
    const r = dpkg(['-i', debOf('amd64')]);
    expect(r.status, r.all).toBe(0);
    // The config was purged: the package's example is back; the test's is written again.
    writeFileSync(CONFIG, siteConfig());
    writeFileSync(TOKEN, `${TOKEN_VALUE}\n`);
    expect(undelivered().out).toBe('20\n');
    // What `restore --force` keeps aside, and a backup: both hold the 20 undelivered punches.
    // (Made as a backup under another name and moved: backup refuses a name of the journal's own files.)
    const keptAside = `${STATE}/journal.db.before-restore-20261128T101500Z`;
    expect(asService(['backup', `${STATE}/aside.db`]).status).toBe(0);
    renameSync(`${STATE}/aside.db`, keptAside);
    expect(asService(['backup', `${STATE}/backups`]).status).toBe(0);
    const backups = readdirSync(`${STATE}/backups`).length;
    expect(backups).toBeGreaterThanOrEqual(2);
    await hrms('faults', { errorRate: 0 });
    daemon = startDaemon();
    await waitFor(async () => (await atHrms()) === 370, 60_000, '370 punches at the HRMS');
    expect(await stop(daemon)).toBe(0);
    expect(undelivered().out).toBe('0\n');
    // And a link to a root file again, where the old prerm wrote.
    plant('ln', ['-sf', victim(), `${STATE}/undelivered-at-removal`]);

    const purge = dpkg(['--purge', 'punchgate']);
    expect(purge.status, purge.all).toBe(0);
    expect(purge.all).toContain(`punchgate: kept ${STATE}, which holds attendance records:`);
    expect(purge.all).toContain(`  ${keptAside}: a journal holding 20 undelivered punches`);
    expect(purge.all).toContain(`  ${STATE}/backups: ${backups} backup file(s) of the journal`);
    expect(purge.all).not.toContain(`${STATE}/journal.db: a journal`);
    expect(existsSync(keptAside)).toBe(true);
    expect(readdirSync(`${STATE}/backups`)).toHaveLength(backups);
    victimUnchanged();
  });

  it('installed again with nothing undelivered and no backup (backups/ a link to a root folder): a purge removes the journal folder, and nothing outside it', () => {
    // The admin took the kept-aside journal and the backups elsewhere.
    sh('rm', [
      '-rf',
      `${STATE}/backups`,
      ...readdirSync(STATE)
        .filter((f) => f.includes('before-restore'))
        .map((f) => `${STATE}/${f}`),
    ]);
    const r = dpkg(['-i', debOf('amd64')]);
    expect(r.status, r.all).toBe(0);
    expect(statSync(`${STATE}/backups`).uid).toBe(user.uid);
    // backups/ replaced by a link to a root folder holding a root file.
    const rootDir = join(tmp.dir, 'root-folder');
    mkdirSync(rootDir);
    writeFileSync(join(rootDir, 'keep.txt'), VICTIM_TEXT);
    plant('rm', ['-rf', `${STATE}/backups`]);
    plant('ln', ['-s', rootDir, `${STATE}/backups`]);
    const purge = dpkg(['--purge', 'punchgate']);
    expect(purge.status, purge.all).toBe(0);
    expect(purge.all).not.toContain('kept');
    expect(existsSync(STATE)).toBe(false);
    expect(readFileSync(join(rootDir, 'keep.txt'), 'utf8')).toBe(VICTIM_TEXT);
    victimUnchanged();
  });

  it("the tarball's install.sh installs the same files, and --purge removes them", () => {
    const dir = join(tmp.dir, 'tarball');
    mkdirSync(dir);
    expect(sh('tar', ['-xzf', tarballOf('amd64'), '-C', dir]).status).toBe(0);
    const install = join(dir, `punchgate-${VERSION}-linux-amd64`, 'install.sh');
    const r = sh(install, [], { timeoutMs: DPKG_STEP_MS });
    expect(r.status, r.all).toBe(0);
    expect(r.all).toContain('punchgate is installed. Next:');
    expect(sh('punchgate', ['--version'], { env: SERVICE_ENV }).out).toBe(`punchgate ${VERSION} (Node v${RUNTIME})\n`);
    expect(statSync(TOKEN).mode & 0o777).toBe(0o640);
    expect(configMode()).toEqual({ mode: 0o640, uid: 0, gid: serviceUser().gid });
    expect(statSync(`${STATE}/backups`).mode & 0o777).toBe(0o750);
    expect(existsSync('/usr/lib/systemd/system/punchgate.service')).toBe(true);
    expect(existsSync('/usr/lib/systemd/system/punchgate-backup.timer')).toBe(true);
    const purge = sh(install, ['--purge'], { timeoutMs: DPKG_STEP_MS });
    expect(purge.status, purge.all).toBe(0);
    for (const gone of [
      '/usr/bin/punchgate',
      '/usr/lib/punchgate',
      '/etc/punchgate',
      '/usr/lib/systemd/system/punchgate.service',
      '/usr/lib/systemd/system/punchgate-backup.service',
      '/usr/lib/systemd/system/punchgate-backup.timer',
      STATE,
    ]) {
      expect(existsSync(gone), gone).toBe(false);
    }
  });
});
