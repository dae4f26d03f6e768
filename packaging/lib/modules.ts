import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { run, runAsync, say } from './run.js';
import type { Runtime } from './runtime.js';
import type { Target } from './target.js';

/**
 * The node_modules a package ships: only the native modules the bundle leaves outside
 * (rolldown.config.ts: better-sqlite3-napi, serialport, unix-dgram) and what they require at run
 * time. Everything else punchgate uses is inside dist/punchgate.js.
 *
 * better-sqlite3 12 is not shipped: the pinned runtime is Node 24, where punchgate loads
 * better-sqlite3 13 (the optional dependency better-sqlite3-napi; see src/journal/sqlite-driver.ts).
 */
export const NATIVE_ROOTS = ['better-sqlite3-napi', 'serialport', 'unix-dgram'] as const;

/** Needed only to compile (C++ headers): in the build tree, not in the package. */
const BUILD_ONLY = new Set(['node-addon-api', 'nan']);

/** The modules compiled here, for each architecture and the pinned runtime, with node-gyp. */
const COMPILED: ReadonlyArray<{ name: string; file: string; gypArgs: string[] }> = [
  // --force_build=1: its own prebuilt binaries (downloaded with the npm package) are not used.
  { name: 'better-sqlite3-napi', file: 'build/Release/better_sqlite3.node', gypArgs: ['--force_build=1'] },
  { name: 'unix-dgram', file: 'build/Release/unix_dgram.node', gypArgs: [] },
];

/** Symbols and the compilers' notes (.comment) out of a binary: the package ships no debugging data. */
export const STRIP = ['--strip-unneeded', '--remove-section=.comment'];

/** @serialport/bindings-cpp ships prebuilt binaries (Node-API) for both architectures: its glibc one is kept. */
const PREBUILT = '@serialport/bindings-cpp';

/**
 * The production dependency tree exactly as the lockfile says (`npm ci --omit=dev`), without
 * running any install script, in a folder of the cache named after the lockfile. npm runs on the
 * pinned runtime, so optional dependencies are chosen for Node 24 (better-sqlite3-napi needs >= 22).
 */
export function installProduction(repo: string, cache: string, hostRuntime: Runtime, npm: string): string {
  const files = ['package.json', 'package-lock.json'];
  const hash = createHash('sha256');
  for (const f of files) hash.update(readFileSync(join(repo, f)));
  hash.update(hostRuntime.version);
  const dir = join(cache, `npm-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(repo, f), join(dir, f));
  say('all', `npm ci --omit=dev (Node ${hostRuntime.version}) for the native modules' tree`);
  run(hostRuntime.node, [npm, 'ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    env: { PATH: `${dirname(hostRuntime.node)}:${process.env.PATH ?? ''}` },
  });
  writeFileSync(join(dir, '.complete'), '');
  return dir;
}

interface Manifest {
  name: string;
  version: string;
  license?: unknown;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export function manifestOf(pkgDir: string): Manifest {
  return JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as Manifest;
}

/** Where `require(name)` from inside `fromDir` finds the package (Node's lookup up the node_modules folders). */
function resolvePackage(name: string, fromDir: string, root: string): string {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root) throw new Error(`${name}, required by ${relative(root, fromDir)}, is not installed`);
    dir = dirname(dir);
    // Step out of a scope folder (node_modules/@serialport/x -> node_modules/..).
    if (basename(dir) === 'node_modules') dir = dirname(dir);
    else if (basename(dir).startsWith('@') && basename(dirname(dir)) === 'node_modules') dir = dirname(dirname(dir));
  }
}

/**
 * The package folders `roots` need at run time (dependencies and optional dependencies, found
 * as Node finds them), as paths relative to `root`; build-only packages left out.
 */
export function closure(root: string, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const m = manifestOf(dir);
    for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies })) {
      if (BUILD_ONLY.has(dep)) continue;
      visit(resolvePackage(dep, dir, root));
    }
  };
  for (const r of roots) visit(resolvePackage(r, root, root));
  return [...seen].map((d) => relative(root, d)).sort();
}

/** Files a package needs to be required, not to be read, built or tested. Licences go to the copyright file. */
function wanted(rel: string): boolean {
  const name = basename(rel);
  if (/^(licen[cs]e|copying|notice|authors)(\..*)?$/i.test(name)) return false;
  if (/\.(md|markdown|txt|d\.ts|d\.mts|d\.cts|ts|map|c|cc|cpp|h|hpp|gyp|gypi|py|sh|yml|yaml)$/i.test(name))
    return false;
  if (name === 'binding.gyp' || name.startsWith('.')) return false;
  return true;
}

const SKIPPED_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'example',
  'examples',
  'docs',
  'benchmark',
  'deps',
  'build',
]);

/**
 * Copies one package folder (not its nested node_modules: those are packages of their own) with
 * only what runs. Prebuilt binaries are dropped, except this architecture's glibc one of the
 * module that is not compiled here.
 */
function copyPackage(from: string, to: string, t: Target, keepPrebuilt: boolean): void {
  // A dependency's command-line programs (package.json "bin") are never run in the package.
  const bin = manifestOf(from).bin;
  const programs = new Set(Object.values(typeof bin === 'string' ? { bin } : (bin ?? {})).map((p) => relative('.', p)));
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      const rel = relative(from, abs);
      if (e.isDirectory()) {
        if (rel === 'node_modules' || SKIPPED_DIRS.has(e.name) || e.name.startsWith('.')) continue;
        if (rel === 'prebuilds') {
          if (!keepPrebuilt) continue;
          const own = join(abs, `linux-${t.node}`);
          for (const f of readdirSync(own).filter((n) => n.endsWith('.glibc.node'))) {
            mkdirSync(join(to, 'prebuilds', `linux-${t.node}`), { recursive: true });
            run(t.tool('strip'), [...STRIP, '-o', join(to, 'prebuilds', `linux-${t.node}`, f), join(own, f)]);
          }
          continue;
        }
        walk(abs);
      } else if (e.isFile() && wanted(rel) && !programs.has(rel)) {
        mkdirSync(dirname(join(to, rel)), { recursive: true });
        copyFileSync(abs, join(to, rel));
      }
    }
  };
  walk(from);
}

/** Where a compiled module is kept: by module, version, runtime and architecture. */
function cached(tree: string, mod: (typeof COMPILED)[number], t: Target, runtime: Runtime, cache: string): string {
  const { version } = manifestOf(join(tree, 'node_modules', mod.name));
  return join(cache, 'native', `${mod.name}@${version}-node${runtime.version}-${t.deb}`, basename(mod.file));
}

/**
 * Compiles the native modules not yet in the cache, with npm's node-gyp, against each runtime's
 * headers (npm_config_nodedir), arm64 with the cross compiler; the stripped results go to the
 * cache. The architectures build at the same time (SQLite is one large C file: one core each),
 * each in its own copy of the tree (hard links: node-gyp writes only new files, in build/).
 */
export async function compileNatives(opts: {
  tree: string;
  targets: ReadonlyArray<{ target: Target; runtime: Runtime }>;
  host: Runtime;
  cache: string;
  nodeGyp: string;
}): Promise<void> {
  const { tree, host, cache, nodeGyp } = opts;
  await Promise.all(
    opts.targets.map(async ({ target: t, runtime }) => {
      const missing = COMPILED.filter((mod) => !existsSync(cached(tree, mod, t, runtime, cache)));
      if (missing.length === 0) return;
      const copy = join(cache, `build-${t.deb}`);
      rmSync(copy, { recursive: true, force: true });
      run('cp', ['-al', tree, copy]);
      try {
        for (const mod of missing) {
          const pkgDir = join(copy, 'node_modules', mod.name);
          // A hard-linked build/ left by the npm tree would be written through: start without it.
          rmSync(join(pkgDir, 'build'), { recursive: true, force: true });
          say(t.deb, `compiling ${mod.name} for Node ${runtime.version} (${t.triplet})`);
          await runAsync(
            host.node,
            [
              nodeGyp,
              'rebuild',
              '--release',
              `--arch=${t.node}`,
              `--nodedir=${runtime.dir}`,
              '--jobs=max',
              ...mod.gypArgs,
            ],
            {
              cwd: pkgDir,
              env: {
                ...t.compilerEnv(),
                npm_config_nodedir: runtime.dir,
                // The build's own helper scripts (`node lib/binding.js`, `node copy.js`) run on the build machine.
                PATH: `${dirname(host.node)}:${process.env.PATH ?? ''}`,
              },
            },
          );
          const out = cached(tree, mod, t, runtime, cache);
          mkdirSync(dirname(out), { recursive: true });
          run(t.tool('strip'), [...STRIP, '-o', `${out}.tmp`, join(pkgDir, mod.file)]);
          renameSync(`${out}.tmp`, out);
        }
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }),
  );
}

/** Builds `<dest>/node_modules` for one architecture: the closure, trimmed, with the compiled binaries in place. */
export function stageModules(opts: {
  tree: string;
  dest: string;
  target: Target;
  runtime: Runtime;
  cache: string;
}): string[] {
  const { tree, dest, target: t } = opts;
  const dirs = closure(tree, NATIVE_ROOTS);
  for (const rel of dirs) copyPackage(join(tree, rel), join(dest, rel), t, rel === `node_modules/${PREBUILT}`);
  for (const mod of COMPILED) {
    const built = cached(tree, mod, t, opts.runtime, opts.cache);
    if (!existsSync(built)) throw new Error(`${mod.name} is not compiled for ${t.deb} (compileNatives first)`);
    const to = join(dest, 'node_modules', mod.name, mod.file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(built, to);
  }
  const prebuilt = join(dest, 'node_modules', PREBUILT, 'prebuilds', `linux-${t.node}`);
  if (!existsSync(prebuilt) || readdirSync(prebuilt).length !== 1) {
    throw new Error(`${PREBUILT}: expected one glibc prebuilt binary for linux-${t.node}`);
  }
  return dirs;
}
