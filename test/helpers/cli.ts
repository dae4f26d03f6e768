import { execFile } from 'node:child_process';
import { join } from 'node:path';

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
      { env: { ...base, ...opts.env }, encoding: 'utf8', timeout: opts.timeoutMs ?? 30_000, ...opts.as },
      (err, stdout, stderr) => {
        const code = err ? (err as { code?: unknown }).code : 0;
        if (err && typeof code !== 'number') return reject(err);
        resolve({ status: code as number, stdout, stderr });
      },
    );
  });
}
