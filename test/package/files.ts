/**
 * What the package tests and the package benchmark share: where `npm run package` put the files.
 */
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
