import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { build } from 'rolldown';
import { bundleOptions } from '../rolldown.config.js';

/**
 * Tests that start real child processes run the built CLI, the bundle `punchgate` ships
 * (dist/punchgate.js): build both once before the suite, as `npm run build` does. Type errors
 * do not stop tsc's emit (the type check of `npm test` reports them); only a build that
 * could not run at all fails here.
 */
export default async function setup(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0 && r.status !== 2) throw new Error(`build failed (tsc exit ${r.status})`);
  await build({ ...bundleOptions, logLevel: 'warn' });
}
