/**
 * This machine as a box the punchgate package is installed on, for the package test
 * (test/package/install.test.ts) and the package benchmark (bench/package.ts): installing and
 * purging, starting the installed binary as the service would, the demo's first delivery, and
 * leaving the machine as it was. Needs root.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { STEP_TIMEOUT_MS, stuckStepError } from './stuck-step.js';

export const STATE = '/var/lib/punchgate';
/** What the unit gives the service; the installed binary is started with no more than this. */
export const SERVICE_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', TZ: 'UTC', HOME: STATE };

export interface Ran {
  status: number | null;
  out: string;
  err: string;
  all: string;
}

/**
 * Runs a program to its end; `all` is stdout and stderr together (what an admin sees). Bounded:
 * past `timeoutMs` it and every process it started are ended and the error names the step, what
 * still ran and its output (a hang fails the test in minutes, with its cause, not at the 900 s
 * test timeout). In a session of its own (setsid(1), which runs it in its own process here: a
 * child of this one leads no process group), so that its whole tree can be found and ended.
 */
export function sh(
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {},
): Ran {
  const timeoutMs = opts.timeoutMs ?? STEP_TIMEOUT_MS;
  const r = spawnSync('setsid', [cmd, ...args], {
    encoding: 'utf8',
    env: opts.env ?? process.env,
    input: opts.input,
    cwd: opts.cwd,
    maxBuffer: 64 * 1024 * 1024,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  if ((r.error as { code?: string } | undefined)?.code === 'ETIMEDOUT')
    throw stuckStepError(stepName(cmd, args), timeoutMs, r.pid, `${r.stdout ?? ''}${r.stderr ?? ''}`);
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout, err: r.stderr, all: `${r.stdout}${r.stderr}` };
}

/** A step as the error names it: the command line on one line, shortened (an `sh -c` script is long). */
const stepName = (cmd: string, args: readonly string[]) => [cmd, ...args].join(' ').replace(/\s+/g, ' ').slice(0, 300);

/** The same without blocking this process: what it serves (simulators, probes) keeps answering meanwhile. */
export function shAsync(
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  const timeoutMs = opts.timeoutMs ?? STEP_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      detached: true,
    });
    let out = '';
    let err = '';
    // The session outlives its leader: what the step left running is found and ended with it.
    const timer = setTimeout(() => {
      reject(stuckStepError(stepName(cmd, args), timeoutMs, child.pid, `${out}${err}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('close', (status) => (clearTimeout(timer), resolve({ status, out, err, all: `${out}${err}` })));
  });
}

/** A run of the installed CLI (as the service user): a second or two, even on a loaded CI box. */
export const CLI_STEP_MS = 120_000;
/**
 * dpkg installing, upgrading or removing the package, its maintainer scripts included: seconds.
 * Below the removal scripts' own bounds added up (a list 120 s, a count 300 s), so that a step of
 * theirs that hangs is seen still running, by name, when the test ends it.
 */
export const DPKG_STEP_MS = 240_000;

export const isRoot = () => process.getuid?.() === 0;

/** dpkg's status of the package ('' when dpkg does not know it). */
export const packageStatus = () => sh('dpkg-query', ['-W', '-f', '${Status}', 'punchgate']).out;

/** What of punchgate is on this machine already (a test or bench must not take over a real install). */
export function leftovers(): string[] {
  return [
    packageStatus() !== '' ? 'the package punchgate' : '',
    sh('getent', ['passwd', 'punchgate']).status === 0 ? 'a user punchgate' : '',
    ...['/etc/punchgate', STATE, '/usr/lib/punchgate'].filter((p) => existsSync(p)),
  ].filter(Boolean);
}

export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const started: Proc[] = [];

/** A program started as the service manager would (its environment only), optionally as another user. */
export function start(cmd: string, args: string[], as?: { uid: number; gid: number }): Proc {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: SERVICE_ENV, ...as });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const p = {
    child,
    output: () => out,
    exited: new Promise<number | null>((r) => child.on('exit', (code) => r(code))),
  };
  started.push(p);
  return p;
}

/**
 * How long a stop may take: the unit's TimeoutStopSec= (30 s, then systemd kills it), twice over
 * for a loaded CI box.
 */
export const STOP_MS = 60_000;

/**
 * SIGTERM, as systemd stops the service, and its exit code. Bounded: a process still running
 * `ms` later is killed and the error says so with its last output (not a bare test timeout).
 */
export async function stop(p: Proc, ms = STOP_MS): Promise<number | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(
        new Error(
          `${p.child.spawnargs.join(' ')} (pid ${p.child.pid}) still ran ${ms / 1000} s after SIGTERM (killed now); its last output:\n${p.output().slice(-4000)}`,
        ),
      );
    }, ms);
  });
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The service user's ids, once the package created it. */
export function serviceUser(): { uid: number; gid: number } {
  return { uid: Number(sh('id', ['-u', 'punchgate']).out), gid: Number(sh('id', ['-g', 'punchgate']).out) };
}

/** A command as the service user, as the package's messages tell the admin to run it. */
export const asService = (args: string[]): Ran =>
  sh('runuser', ['-u', 'punchgate', '--', '/usr/bin/punchgate', ...args], { env: SERVICE_ENV, timeoutMs: CLI_STEP_MS });

/** `dpkg ARGS` (install, upgrade, purge), bounded as such. */
export const dpkg = (args: string[]): Ran => sh('dpkg', args, { timeoutMs: DPKG_STEP_MS });

/** `apt-get install ./file.deb`, as an admin installs it. */
export const aptInstall = (deb: string): Ran =>
  sh('apt-get', ['install', '-y', '--no-install-recommends', deb], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeoutMs: DPKG_STEP_MS,
  });

/**
 * `punchgate demo` of an installed punchgate (`bin`), on the shipped demo config moved to free
 * ports, until the daemon says it delivered punches; then Ctrl-C. Returns when that happened.
 */
export async function demoFirstDelivery(
  bin: string,
  libDir: string,
  workDir: string,
): Promise<{ at: number; exit: number | null; output: string }> {
  const demo = readFileSync(join(libDir, 'config/demo.yaml'), 'utf8')
    .replace('127.0.0.1:18080', `127.0.0.1:${await freePort()}`)
    .replace('127.0.0.1:9330', `127.0.0.1:${await freePort()}`)
    .replace('127.0.0.1:18081', `127.0.0.1:${await freePort()}`)
    .replace('port: 14370', `port: ${await freePort()}`)
    .replace('127.0.0.1:18082', `127.0.0.1:${await freePort()}`)
    .replace('port: 18083', `port: ${await freePort()}`);
  const dir = join(workDir, 'config');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'demo.yaml'), demo);
  writeFileSync(join(dir, 'demo-token'), readFileSync(join(libDir, 'config/demo-token')));
  const run = start(bin, ['demo', '--demo-config', join(dir, 'demo.yaml'), '--punch-every', '1']);
  const deadline = Date.now() + 120_000;
  while (
    !/delivered \d+ punch(es)? to the HRMS|sent \d+ punch(es)? to the HRMS: [1-9]\d* delivered/.test(run.output())
  ) {
    if (Date.now() > deadline || run.child.exitCode !== null) {
      run.child.kill('SIGKILL');
      throw new Error(`the demo delivered nothing within 120 s:\n${run.output().slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const at = Date.now();
  run.child.kill('SIGINT');
  return { at, exit: await run.exited, output: run.output() };
}

/** Everything the package and its tests leave on the machine: gone (processes, package, user, folders). */
export function cleanMachine(): void {
  for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  if (packageStatus() !== '') dpkg(['--purge', 'punchgate']);
  // What the tarball's install.sh puts in place, when a step failed before its --purge.
  sh('rm', [
    '-rf',
    '/usr/lib/punchgate',
    '/usr/bin/punchgate',
    '/usr/lib/systemd/system/punchgate.service',
    '/usr/lib/systemd/system/punchgate-backup.service',
    '/usr/lib/systemd/system/punchgate-backup.timer',
    '/usr/lib/sysusers.d/punchgate.conf',
    '/usr/lib/modules-load.d/punchgate.conf',
    '/usr/share/man/man1/punchgate.1.gz',
    '/usr/share/doc/punchgate',
    STATE,
    '/etc/punchgate',
    '/etc/systemd/system/multi-user.target.wants/punchgate.service',
    '/etc/systemd/system/timers.target.wants/punchgate-backup.timer',
    '/run/punchgate-removal.counts',
  ]);
  sh('dpkg-statoverride', ['--remove', '/etc/punchgate/punchgate.yaml']);
  if (sh('getent', ['passwd', 'punchgate']).status === 0) sh('userdel', ['punchgate']);
  if (sh('getent', ['group', 'punchgate']).status === 0) sh('groupdel', ['punchgate']);
}
