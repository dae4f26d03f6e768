import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Tests that start real child processes run the built CLI: build once before the suite.
 * Type errors do not stop the emit (the type check of `npm test` reports them); only a
 * build that could not run at all fails here.
 */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0 && r.status !== 2) throw new Error(`build failed (tsc exit ${r.status})`);
}
