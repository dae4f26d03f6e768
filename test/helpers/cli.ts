import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from './tmp.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`dist/punchgate.js ARGS`) as a child process, asynchronously (simulators in
 * this process keep answering). `as` runs it as another user (tests running as root); `shell`
 * wraps it in `sh -c` with a prefix such as `ulimit -f 0;`.
 */
export function runPunchgate(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; as?: { uid: number; gid: number }; shell?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const {
    PUNCHGATE_HRMS_TOKEN: _t,
    CREDENTIALS_DIRECTORY: _c,
    PUNCHGATE_CONFIG: _p,
    NOTIFY_SOCKET: _n,
    ...base
  } = process.env;
  const cli = join(process.cwd(), 'dist/punchgate.js');
  const [file, argv] = opts.shell
    ? ['sh', ['-c', `${opts.shell} exec "$0" "$@"`, process.execPath, cli, ...args]]
    : [process.execPath, [cli, ...args]];
  return new Promise((resolve, reject) => {
    execFile(
      file,
      argv,
      {
        env: { ...base, ...opts.env },
        encoding: 'utf8',
        timeout: opts.timeoutMs ?? 30_000,
        maxBuffer: 64 * 1024 * 1024,
        ...opts.as,
      },
      (err, stdout, stderr) => {
        const code = err ? (err as { code?: unknown }).code : 0;
        if (err && typeof code !== 'number') return reject(err);
        resolve({ status: code as number, stdout, stderr });
      },
    );
  });
}

/**
 * A temp folder with a config (journal inside it, no terminals unless given) and its journal,
 * made as `punchgate run` makes it at its first start (only run creates one), for CLI child processes.
 */
export function cliSandbox(extra: Record<string, unknown> = {}) {
  const tmp = tempDir('punchgate-cli-');
  const config = tmp.path('punchgate.yaml');
  writeFileSync(
    config,
    stringify({
      site: 'plant-a',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      terminals: [],
      ...extra,
    }),
  );
  Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner' }).close();
  /** Runs `punchgate --config <sandbox config> ...args` as a child, without blocking this process. */
  const cli = (...args: string[]) => runPunchgate(['--config', config, ...args], { timeoutMs: 60_000 });
  return { tmp, config, cli };
}
