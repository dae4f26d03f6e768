import { spawn, spawnSync } from 'node:child_process';

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Print the program's output as it runs (long builds); otherwise it is kept and shown only on failure. */
  stream?: boolean;
  input?: string | Buffer;
}

/**
 * Runs a program of the build and returns its stdout; a failure throws with the command and the
 * end of its output (what to read first), never a bare exit code.
 */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): string {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
    encoding: 'utf8',
    input: opts.input,
    maxBuffer: 256 * 1024 * 1024,
    stdio: opts.stream ? ['ignore', 'inherit', 'inherit'] : ['pipe', 'pipe', 'pipe'],
  });
  if (r.error) throw new Error(`${cmd}: ${r.error.message} (is it installed? see docs/development.md)`);
  if (r.status !== 0) {
    const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trimEnd().split('\n').slice(-30).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}${tail ? `:\n${tail}` : ''}`);
  }
  return r.stdout ?? '';
}

/** The same, without blocking: for the builds that run side by side. */
export function runAsync(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let all = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      all += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (all += d.toString()));
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message} (is it installed? see docs/development.md)`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(out);
      const tail = all.trimEnd().split('\n').slice(-30).join('\n');
      reject(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? signal}${tail ? `:\n${tail}` : ''}`));
    });
  });
}

/** A step of the build, said on stderr (stdout stays for what the caller asked for). */
export function say(arch: string, text: string): void {
  process.stderr.write(`[package ${arch}] ${text}\n`);
}
