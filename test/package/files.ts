/**
 * What the package tests share: where `npm run package` put the files, and running the programs
 * that inspect and install them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const OUT = join(process.cwd(), 'dist', 'package');
export const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
export const RUNTIME = (JSON.parse(readFileSync('packaging/runtime.json', 'utf8')) as { version: string }).version;

export const debOf = (arch: 'amd64' | 'arm64', version = VERSION, out = OUT) =>
  join(out, `punchgate_${version}_${arch}.deb`);
export const tarballOf = (arch: 'amd64' | 'arm64', version = VERSION) =>
  join(OUT, `punchgate-${version}-linux-${arch}.tar.gz`);

/** The packages must have been built (`npm run package`): say how when they were not. */
export function requireBuilt(): void {
  const missing = [debOf('amd64'), debOf('arm64'), tarballOf('amd64'), tarballOf('arm64')].filter(
    (f) => !existsSync(f),
  );
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')}: run npm run package first`);
}

export interface Ran {
  status: number | null;
  out: string;
  err: string;
  all: string;
}

/** Runs a program to its end; `all` is stdout and stderr together (what an admin sees). */
export function sh(
  cmd: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): Ran {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    env: opts.env ?? process.env,
    input: opts.input,
    cwd: opts.cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout, err: r.stderr, all: `${r.stdout}${r.stderr}` };
}
