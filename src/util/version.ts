import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-paths.js';

let cached: string | undefined;

/**
 * punchgate's version, from the package.json it was installed with. Read at run time (once):
 * the bundle (dist/punchgate.js) and the compiled tree both find it by walking up to the
 * package folder, so the version shown is always that of the files that run.
 */
export function punchgateVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
      cached = typeof pkg.version === 'string' ? pkg.version : 'unknown';
    } catch {
      cached = 'unknown';
    }
  }
  return cached;
}

/**
 * What `punchgate --version` prints: punchgate's version and the runtime's. An installed package
 * brings its own Node.js (not the box's), so the runtime is part of what runs and of a bug report.
 */
export function versionLine(): string {
  return `punchgate ${punchgateVersion()} (Node ${process.version})`;
}
