/**
 * Benchmark `package` (issue 26): the .deb as a site admin meets it, next to the install from
 * source (the npm route of docs/install.md) measured in the same run:
 * - the sizes of the four files `npm run package` built (target: 45 MB each), the installed size;
 * - install to first punch: `apt-get install ./punchgate_<v>_amd64.deb`, then `punchgate demo`
 *   until the daemon delivered punches to the simulated HRMS; baseline: `npm install -g` of the
 *   packed tarball (its native modules compiled on the box), then the same demo;
 * - upgrade downtime: `punchgate run` answering /readyz, the new files installed, the service
 *   restarted, until /readyz answers again (target: 5 s); baseline: the npm route's upgrade (stop,
 *   `npm install -g`, start).
 * Opt-in (`npm run bench -- package`): it installs and removes the package on this machine, so it
 * needs root, the packages built (`npm run package`) and no punchgate installed; it says so and
 * skips otherwise. The machine is left as it was.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  aptInstall,
  cleanMachine,
  demoFirstDelivery,
  isRoot,
  leftovers,
  serviceUser,
  sh,
  start,
  STATE,
  stop,
  type Proc,
} from './lib/package-box.js';
import { freePort } from './lib/ports.js';
import { fmt, log, type BenchRow } from './lib/table.js';

const MAX_MB = 45;
const MAX_DOWNTIME_S = 5;
const ALLOW_SCRIPTS = 'better-sqlite3,@serialport/bindings-cpp,unix-dgram';

async function readyWithin(port: number, p: Proc, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) })).status === 200)
        return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || p.child.exitCode !== null) {
      throw new Error(`punchgate run was not ready within ${ms / 1000} s:\n${p.output().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A config with no terminal: what the downtime needs is the daemon answering /readyz. */
function writeConfig(file: string, journal: string, page: number): void {
  writeFileSync(
    file,
    `site: bench\njournal:\n  path: ${journal}\nhrms:\n  baseUrl: http://127.0.0.1:${page + 1}\nstatus:\n  listen: 127.0.0.1:${page}\n`,
  );
}

/** Stop, `between` (the new files), start, until ready: the seconds punches could not be taken. */
async function restartDowntime(
  daemon: Proc,
  between: () => void,
  again: () => Proc,
  page: number,
): Promise<{ seconds: number; next: Proc }> {
  const t0 = Date.now();
  await stop(daemon);
  between();
  const next = again();
  await readyWithin(page, next, 60_000);
  return { seconds: (Date.now() - t0) / 1000, next };
}

export async function benchPackage(): Promise<BenchRow[]> {
  const out = join(process.cwd(), 'dist', 'package');
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const deb = join(out, `punchgate_${version}_amd64.deb`);
  if (!isRoot()) {
    log('package: skipped: it installs the package on this machine and needs root');
    return [];
  }
  if (!existsSync(deb)) {
    log(`package: skipped: ${deb} is missing: run npm run package first`);
    return [];
  }
  const found = leftovers();
  if (found.length > 0) {
    log(`package: skipped: this machine already has ${found.join(', ')}`);
    return [];
  }

  const rows: BenchRow[] = [];
  for (const f of readdirSync(out)
    .filter((n) => n.startsWith('punchgate') && /\.(deb|tar\.gz)$/.test(n))
    .sort()) {
    const mb = statSync(join(out, f)).size / 1e6;
    rows.push({
      bench: 'package',
      metric: `size of ${f}`,
      unit: 'MB',
      ours: mb,
      target: `<= ${MAX_MB} MB`,
      pass: mb <= MAX_MB,
    });
  }

  const work = mkdtempSync(join(tmpdir(), 'punchgate-bench-package-'));
  sh('chmod', ['0755', work]);
  try {
    // Ours: the package.
    const t0 = Date.now();
    const installed = aptInstall(deb);
    if (installed.status !== 0) throw new Error(`apt-get install failed:\n${installed.all}`);
    const demo = await demoFirstDelivery('/usr/bin/punchgate', '/usr/lib/punchgate', join(work, 'demo-deb'));
    const ours = (demo.at - t0) / 1000;
    const kib = Number(sh('dpkg-query', ['-W', '-f', '${Installed-Size}', 'punchgate']).out);
    log(`package: .deb installed and the demo's first delivery after ${fmt(ours, 1)} s`);

    const page = await freePort();
    writeConfig('/etc/punchgate/punchgate.yaml', `${STATE}/journal.db`, page);
    const user = serviceUser();
    const run = () => start('/usr/bin/punchgate', ['run', '--config', '/etc/punchgate/punchgate.yaml'], user);
    let daemon = run();
    await readyWithin(page, daemon, 60_000);
    // The new files while the old process runs (here the same version again: dpkg runs the upgrade path).
    const upgrade = sh('dpkg', ['-i', deb]);
    if (upgrade.status !== 0) throw new Error(`dpkg -i failed:\n${upgrade.all}`);
    const restarted = await restartDowntime(daemon, () => undefined, run, page);
    daemon = restarted.next;
    await stop(daemon);
    log(`package: upgrade downtime ${fmt(restarted.seconds, 2)} s`);
    cleanMachine();

    // Baseline: the install from source, as docs/install.md gives it (into a prefix of its own).
    const pack = sh('npm', ['pack', '--pack-destination', work, '--silent']);
    if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.all}`);
    const tgz = join(work, pack.out.trim().split('\n').at(-1)!);
    const prefix = join(work, 'npm-prefix');
    const npmInstall = () => {
      const r = sh(
        'npm',
        ['install', '-g', '--prefix', prefix, `--allow-scripts=${ALLOW_SCRIPTS}`, '--no-audit', '--no-fund', tgz],
        {
          // Compiled on the box, as the README's route does (no prebuilt binary downloaded).
          env: { ...process.env, npm_config_build_from_source: 'true' },
        },
      );
      if (r.status !== 0) throw new Error(`npm install -g failed:\n${r.all}`);
    };
    const t1 = Date.now();
    npmInstall();
    const npmLib = join(prefix, 'lib', 'node_modules', 'punchgate');
    const npmDemo = await demoFirstDelivery(join(prefix, 'bin', 'punchgate'), npmLib, join(work, 'demo-npm'));
    const baseline = (npmDemo.at - t1) / 1000;
    log(`package: npm route installed and the demo's first delivery after ${fmt(baseline, 1)} s`);

    const npmPage = await freePort();
    const npmConfig = join(work, 'npm.yaml');
    writeConfig(npmConfig, join(work, 'npm-journal.db'), npmPage);
    const npmRun = () => start(join(prefix, 'bin', 'punchgate'), ['run', '--config', npmConfig]);
    const npmDaemon = npmRun();
    await readyWithin(npmPage, npmDaemon, 60_000);
    const npmUpgrade = await restartDowntime(npmDaemon, npmInstall, npmRun, npmPage);
    await stop(npmUpgrade.next);
    log(`package: npm route upgrade downtime ${fmt(npmUpgrade.seconds, 1)} s`);

    rows.push(
      { bench: 'package', metric: 'installed size (amd64)', unit: 'MiB', ours: kib / 1024, target: 'info' },
      {
        bench: 'package',
        metric: 'install to first punch (demo)',
        unit: 's',
        ours,
        baseline,
        ratio: ours / baseline,
        target: 'info (baseline: npm install -g, compiled)',
      },
      {
        bench: 'package',
        metric: 'upgrade downtime (stop, start, /readyz)',
        unit: 's',
        ours: restarted.seconds,
        baseline: npmUpgrade.seconds,
        ratio: restarted.seconds / npmUpgrade.seconds,
        target: `<= ${MAX_DOWNTIME_S} s`,
        pass: restarted.seconds <= MAX_DOWNTIME_S,
        note: 'baseline: stop, npm install -g, start',
      },
    );
    return rows;
  } finally {
    cleanMachine();
    rmSync(work, { recursive: true, force: true });
  }
}
