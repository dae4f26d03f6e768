/**
 * How systemd/punchgate.service runs punchgate: its `Environment=` settings and the node flags
 * of its `ExecStart=`. The benchmarks and the daemon tests start `punchgate run` (and `flush`) the
 * same way, so that what they measure and test is what is shipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The unit file, found from here upwards (this file runs from bench/lib and from dist/bench/lib). */
function unitText(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'systemd', 'punchgate.service');
    if (existsSync(candidate)) return readFileSync(candidate, 'utf8');
    const up = dirname(dir);
    if (up === dir) throw new Error('systemd/punchgate.service not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

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
