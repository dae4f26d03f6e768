import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, say } from './run.js';
import type { Target } from './target.js';

/** packaging/runtime.json: the pinned Node.js runtime. */
export interface RuntimePin {
  version: string;
  arches: Record<string, { npmPackage: string; sha256: string }>;
}

export interface Runtime {
  version: string;
  /** The unpacked npm package: bin/node, include/node (headers for node-gyp), LICENSE. */
  dir: string;
  node: string;
}

export function readPin(file: string): RuntimePin {
  return JSON.parse(readFileSync(file, 'utf8')) as RuntimePin;
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The pinned Node.js of one architecture, from the npm registry's package of the official
 * binaries (`npm pack`: the registry is the only network the build uses). The tarball is kept
 * in the cache and checked against the pinned sha256 every time, before anything in it is used.
 */
export function fetchRuntime(t: Target, pin: RuntimePin, cache: string, npm: string): Runtime {
  const arch = pin.arches[t.deb];
  if (!arch) throw new Error(`packaging/runtime.json pins no runtime for ${t.deb}`);
  mkdirSync(cache, { recursive: true });
  const tgz = join(cache, `${arch.npmPackage}-${pin.version}.tgz`);
  if (!existsSync(tgz)) {
    say(t.deb, `downloading ${arch.npmPackage}@${pin.version} from the npm registry`);
    run(process.execPath, [npm, 'pack', `${arch.npmPackage}@${pin.version}`, '--pack-destination', cache, '--silent']);
  }
  const sum = sha256Of(tgz);
  if (sum !== arch.sha256) {
    rmSync(tgz, { force: true });
    throw new Error(
      `${arch.npmPackage}-${pin.version}.tgz: sha256 ${sum}, but packaging/runtime.json pins ${arch.sha256}: refused (and removed from the cache)`,
    );
  }
  const dir = join(cache, `node-${pin.version}-${t.deb}`);
  const stamp = join(dir, '.sha256');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== sum) {
    const tmp = `${dir}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    run('tar', ['-xzf', tgz, '-C', tmp, '--strip-components=1', '--no-same-owner']);
    writeFileSync(join(tmp, '.sha256'), sum);
    renameSync(tmp, dir);
  }
  return { version: pin.version, dir, node: join(dir, 'bin', 'node') };
}
