import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { CLI, unitEnv, unitNodeArgs } from './daemon.js';
import { BENCH_SITE, BENCH_TOKEN } from './setup.js';
import { nowMs } from './timing.js';

export interface FlushRun {
  delivered: number;
  requests: number;
  /** From spawn to exit: includes Node's start, loading the bundle, opening the journal and closing. */
  ms: number;
}

/**
 * `punchgate flush` (the shipped bundle) drains the journal at `path` to the simulator at `url`
 * in a child process with the unit's environment and the given NODE_OPTIONS: the delivery
 * path exactly as the service runs it. `onStart` gets the child's pid (for RSS sampling).
 */
export async function flushInChild(
  path: string,
  url: string,
  batchSize: number,
  nodeOptions: string,
  onStart?: (pid: number) => void,
  /** Flags before the script, as the unit's ExecStart= gives them (none: a bare `node`). */
  nodeArgs: readonly string[] = unitNodeArgs(),
): Promise<FlushRun> {
  const dir = dirname(path);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${BENCH_TOKEN}\n`, { mode: 0o600 });
  const configFile = join(dir, `flush-${batchSize}.yaml`);
  writeFileSync(
    configFile,
    stringify({
      site: BENCH_SITE,
      journal: { path },
      hrms: { baseUrl: url, tokenFile, proxy: false },
      delivery: { batchSize },
      log: { level: 'warn' },
    }),
  );
  const t0 = nowMs();
  const child = spawn(process.execPath, [...nodeArgs, CLI, '--config', configFile, 'flush', '--max-wait', '60'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: unitEnv(nodeOptions),
  });
  onStart?.(child.pid!);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const ms = nowMs() - t0;
  const summary = /flush: (\d+) delivered.*\((\d+) requests?\)/.exec(output);
  if (code !== 0 || !summary) throw new Error(`punchgate flush exited ${code}: ${output.slice(-800)}`);
  return { delivered: Number(summary[1]), requests: Number(summary[2]), ms };
}
