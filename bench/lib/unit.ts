/**
 * How punchgate is started, as shipped: by systemd/punchgate.service (its `Environment=` settings
 * and the node flags of its `ExecStart=`) and from a shell (the CLI's `#!` line, which gives the
 * same memory settings). The benchmarks and the daemon tests start `punchgate run` (and `flush`)
 * the same way, so that what they measure and test is what is shipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file of the repository, found from here upwards (this file runs from bench/lib and from dist/bench/lib). */
function repoFile(path: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, path);
    if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    const up = dirname(dir);
    if (up === dir) throw new Error(`${path} not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

const unitText = () => repoFile('systemd/punchgate.service');

/** The unit's `Environment=` settings (NODE_OPTIONS, MALLOC_ARENA_MAX...). */
export function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of unitText().matchAll(/^Environment=(.*)$/gm)) {
    const setting = m[1]!.trim().replace(/^"(.*)"$/, '$1');
    const eq = setting.indexOf('=');
    if (eq > 0) env[setting.slice(0, eq)] = setting.slice(eq + 1).trim();
  }
  return env;
}

/** The flags `ExecStart=` gives node before the punchgate script (`--optimize-for-size`). */
export function unitNodeArgs(): string[] {
  const exec = /^ExecStart=(\S+)\s+(.*)$/m.exec(unitText());
  if (!exec || !/\/node$/.test(exec[1]!)) return [];
  const args = exec[2]!.split(/\s+/);
  return args.slice(
    0,
    args.findIndex((a) => !a.startsWith('--')),
  );
}

/** What the CLI's `#!/usr/bin/env -S NAME=VALUE... node FLAGS` line gives node when a shell runs it. */
export function scriptLaunch(): { env: Record<string, string>; nodeArgs: string[] } {
  const first = repoFile('src/cli/main.ts').split('\n', 1)[0]!;
  const m = /^#!\/usr\/bin\/env -S (.*)$/.exec(first);
  if (!m) throw new Error(`src/cli/main.ts: not an "env -S" #! line: ${first}`);
  const words = m[1]!.trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`src/cli/main.ts: its #! line runs no node: ${first}`);
  const env = Object.fromEntries(
    words.slice(0, node).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
  return { env, nodeArgs: words.slice(node + 1) };
}
