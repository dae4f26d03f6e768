import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'rolldown';
import { bundleOptions } from '../rolldown.config.js';

/**
 * Tests that start real child processes run the built CLI, the bundle `punchgate` ships
 * (dist/punchgate.js): build both once before the suite, as `npm run build` does. Type errors
 * do not stop tsc's emit (the type check of `npm test` reports them); only a build that
 * could not run at all fails here.
 *
 * `npm test` has just run `npm run build`: when the bundle and the compiled tree are newer than
 * every file they are built from, they are not built a second time (tsc and rolldown cost tens of
 * seconds on a small machine). Any source edited since is newer, and the build runs.
 */
export default async function setup(): Promise<void> {
  if (upToDate()) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0 && r.status !== 2) throw new Error(`build failed (tsc exit ${r.status})`);
  await build({ ...bundleOptions, logLevel: 'warn' });
}

/** What the build reads (tsconfig.build.json's include, its configs) and what it writes. */
const INPUT_DIRS = ['src', 'bench', 'packaging'];
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'rolldown.config.ts', 'package.json', 'package-lock.json'];
const OUTPUTS = ['dist/punchgate.js', 'dist/src/cli/main.js', 'dist/packaging/build.js', 'dist/bench/main.js'];

function upToDate(): boolean {
  let built = Infinity;
  try {
    for (const f of OUTPUTS) built = Math.min(built, statSync(f).mtimeMs);
  } catch {
    return false; // not built yet
  }
  let newest = 0;
  const visit = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of INPUT_DIRS) visit(d);
  for (const f of INPUT_FILES) newest = Math.max(newest, statSync(f).mtimeMs);
  return newest < built;
}
