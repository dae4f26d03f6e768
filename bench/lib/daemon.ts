/**
 * Shared set-up of the daemon benchmarks (issue 4): the HRMS simulator and 10 terminal
 * simulators in child processes, a config with 10 ZK terminals polled every minute (the
 * first one also real-time), and `punchgate run` as a child process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { TerminalChildReady } from '../child-terminal.js';
import { BenchChild } from './child.js';
import { hrmsStats, startHrmsChild, type HrmsChild } from './hrms.js';
import { BENCH_SITE, BENCH_TOKEN, scratchDir } from './setup.js';
import { waitUntil } from './timing.js';
import { unitEnvironment, unitNodeArgs } from './unit.js';
import { startTerminalChild } from './zk.js';
import { slowFsyncEnv } from './slow-fsync.js';

export { unitEnvironment, unitNodeArgs };

export const CLI = fileURLToPath(new URL('../../punchgate.js', import.meta.url));

/** Whether this build has `punchgate run` (the daemon of issue 4). */
export function daemonAvailable(): boolean {
  const r = spawnSync(process.execPath, [CLI, 'run', '--help'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && /run/.test(r.stdout);
}

export interface DaemonRig {
  daemon: ChildProcess;
  hrms: HrmsChild;
  terminals: BenchChild<TerminalChildReady>;
  /** Punches on the terminals at start (all must reach the HRMS during warm-up). */
  initialPunches: number;
  /** The folder of the journal, the config and the status log (status.txt, status.json). */
  dir: string;
  stderrTail: () => string;
  stop: () => Promise<void>;
}

export interface RigOptions {
  terminals: number;
  punchesPerTerminal: number;
  usersPerTerminal: number;
  /** Top-level config sections that replace the rig's (e.g. `status`). */
  config?: Record<string, unknown>;
  /** Terminals listed after the rig's ZK terminals (e.g. push terminals, with config.adms). */
  extraTerminals?: Record<string, unknown>[];
  /** Runs before the daemon starts, with the journal's path (e.g. to fill it). */
  beforeStart?: (journalPath: string) => void | Promise<void>;
  /** Node flags before the bundle (e.g. a bench's `--import` preload). */
  nodeArgs?: string[];
  /** Environment added to the unit's. */
  env?: Record<string, string>;
  /** The HRMS simulator's answer delay (a cloud HRMS over the Internet; default none). */
  hrmsLatencyMs?: number;
}

/** Starts the simulators and the daemon, and waits until every initial punch reached the HRMS. */
export async function startDaemonRig(o: RigOptions, warmupTimeoutMs: number): Promise<DaemonRig> {
  const scratch = scratchDir('daemon');
  const hrms = await startHrmsChild({ latencyMs: o.hrmsLatencyMs });
  const terminals = await startTerminalChild(
    Array.from({ length: o.terminals }, (_, i) => ({
      users: o.usersPerTerminal,
      punches: o.punchesPerTerminal,
      faults: { pacingMs: 0 },
      serialNumber: `BENCH${String(i + 1).padStart(4, '0')}`,
      // Each terminal's log starts in another week (all in the past, for up to 250 terminals), so no
      // two terminals hold the same (code, time): the HRMS would answer "duplicate" for those.
      startTime: new Date(Date.UTC(2020, 0, 2 + 7 * i, 8)).toISOString().slice(0, 19).replace('T', ' '),
    })),
  );
  const tokenFile = join(scratch.dir, 'token');
  writeFileSync(tokenFile, `${BENCH_TOKEN}\n`, { mode: 0o600 });
  const config = {
    site: BENCH_SITE,
    journal: { path: join(scratch.dir, 'journal.db') },
    hrms: { baseUrl: hrms.ready.url, tokenFile },
    delivery: { batchSize: 200 },
    terminals: terminals.ready.ports
      .map((port, i) => ({
        name: `t${i + 1}`,
        kind: 'zk',
        host: '127.0.0.1',
        port,
        transport: 'tcp',
        schedule: '* * * * *',
        realtime: i === 0,
      }))
      .concat((o.extraTerminals ?? []) as never[]),
    log: { level: 'warn' },
    // The status page on, as shipped, on a port of its own (benches may run beside other daemons).
    status: { listen: '127.0.0.1:0' },
    ...o.config,
  };
  await o.beforeStart?.(config.journal.path);
  const configFile = join(scratch.dir, 'punchgate.yaml');
  writeFileSync(configFile, stringify(config));

  let tail = '';
  // The daemon runs as the systemd unit runs it: with the unit's environment (NODE_OPTIONS, MALLOC_ARENA_MAX).
  // BENCH_SLOW_FSYNC_MS: the daemon's disk syncs made as slow as an SD card's (slow-fsync.ts).
  const env = { ...unitEnv(), ...slowFsyncEnv(scratch.dir), ...o.env };
  // BENCH_DAEMON_NODE_ARGS: node flags for a look inside (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const extra = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const daemon = spawn(
    process.execPath,
    [...unitNodeArgs(), ...(o.nodeArgs ?? []), ...extra, CLI, '--config', configFile, 'run'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: scratch.dir,
      env,
    },
  );
  daemon.stderr?.setEncoding('utf8').on('data', (d: string) => {
    tail = (tail + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
  let dead = false;
  void exited.then(() => (dead = true));

  const stop = async () => {
    if (!dead) {
      daemon.kill('SIGTERM');
      const t = setTimeout(() => daemon.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    await Promise.all([hrms.stop(), terminals.stop()]);
    scratch.remove();
  };
  const initialPunches = o.terminals * o.punchesPerTerminal;
  try {
    await waitUntil(
      async () => {
        if (dead) throw new Error(`punchgate run exited during warm-up: ${tail.trim().slice(-800)}`);
        return (await hrmsStats(hrms)).added >= initialPunches;
      },
      warmupTimeoutMs,
      `the ${initialPunches} initial punches to reach the HRMS simulator`,
      500,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { daemon, hrms, terminals, initialPunches, dir: scratch.dir, stderrTail: () => tail, stop };
}

/** `NODE_OPTIONS` of the unit. */
export function unitNodeOptions(): string {
  return unitEnvironment().NODE_OPTIONS ?? '';
}

/** The unit's environment, with other NODE_OPTIONS when given (an experiment, or none at all). */
export function unitEnv(nodeOptions = unitNodeOptions()): NodeJS.ProcessEnv {
  return { ...process.env, ...unitEnvironment(), NODE_OPTIONS: nodeOptions };
}
