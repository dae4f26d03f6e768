import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * npm 11 runs a dependency's install scripts (the native builds) only when they are allowed,
 * and with `strict-allow-scripts` refuses the install otherwise. A global install has no project
 * of its own, so the package's `allowScripts` field does not apply there: the install command
 * (README.md and docs/install.md) names the packages with `--allow-scripts`. These lists must be the lockfile's.
 */
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; dev?: boolean; name?: string }>;
};
/** The front page's install in brief and the whole procedure of docs/install.md. */
const manual = ['README.md', 'docs/install.md'].map((f) => readFileSync(f, 'utf8')).join('\n');

/** Packages a production install builds: in the lockfile with an install script, not dev-only. */
const withInstallScripts = Object.entries(lock.packages)
  .filter(([path, p]) => path !== '' && p.hasInstallScript && !p.dev)
  .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
  .sort();

describe('the global install under npm 11', () => {
  it('runs no install script of punchgate itself (dist is built when packing, not when installing)', () => {
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[s], s).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('npm run build');
  });

  it('the install commands of the manual allow exactly the dependencies that build native code', () => {
    expect(withInstallScripts).toEqual(['@serialport/bindings-cpp', 'better-sqlite3', 'unix-dgram']);
    expect(manual).toMatch(/npm install -g [^\n]*--allow-scripts=/);
    // Every list the manual gives (install, upgrade, npm config set) is the whole list.
    const commands = [...manual.matchAll(/allow-scripts=([^\s`]+)/g)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const list of commands) expect(list.split(',').sort()).toEqual(withInstallScripts);
    expect(Object.keys(pkg.allowScripts).sort()).toEqual(withInstallScripts);
  });
});
