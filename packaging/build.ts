/**
 * `npm run package`: builds, on an amd64 Debian machine, for amd64 and arm64:
 *   dist/package/punchgate_<version>_<arch>.deb
 *   dist/package/punchgate-<version>-linux-<arch>.tar.gz   (the same files, and install.sh)
 * Self-contained: the pinned Node.js runtime (packaging/runtime.json), the bundle, and the native
 * modules compiled here for that runtime and architecture. Nothing is compiled or downloaded on the
 * box that installs them.
 *
 * Options: --arch amd64,arm64 (default both), --version V (default package.json's; the package
 * test builds a bumped one), --out DIR (default dist/package), --no-tarball,
 * --repo DIR --key FINGERPRINT: then adds the .debs to the signed APT repository in DIR
 * (packaging/repo.ts, docs/fleet.md; the key in GNUPGHOME).
 * Downloads (the runtime, the npm tree) and compiled modules are kept in dist/package/cache.
 * Needs (see docs/development.md): python3, make, g++, g++-aarch64-linux-gnu, dpkg-dev.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildProgram } from '../src/cli/program.js';
import { packageRoot } from '../src/util/package-paths.js';
import { debianChangelog } from './lib/changelog.js';
import { copyrightFile } from './lib/copyright.js';
import { buildDeb, checkSameNeeds, sharedLibraryDepends } from './lib/deb.js';
import { elfFiles, elfMachine } from './lib/elf.js';
import { manPage } from './lib/man-page.js';
import { compileNatives, installProduction, stageModules } from './lib/modules.js';
import { assemblePayload } from './lib/payload.js';
import { say } from './lib/run.js';
import { fetchRuntime, readPin, type Runtime } from './lib/runtime.js';
import { buildTarball } from './lib/tarball.js';
import { ARCHES, targetOf, type DebArch, type Target } from './lib/target.js';
import { addToRepository, signingKey } from './lib/apt-repo.js';
import { LIB } from './lib/unit.js';

/** Who the package names as its maintainer; a distributor sets their own (PUNCHGATE_MAINTAINER). */
const MAINTAINER = process.env.PUNCHGATE_MAINTAINER ?? 'punchgate maintainers <punchgate@example.org>';

function fail(message: string): never {
  process.stderr.write(`npm run package: ${message}\n`);
  process.exit(1);
}

/** The time of the source (the last commit, or SOURCE_DATE_EPOCH): the man page's date and the tarball's times. */
function sourceTime(repo: string): number {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: repo, encoding: 'utf8' }).trim());
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/** Every ELF file of the tree is built for the package's architecture (a wrong one would only fail on the box). */
function checkArchitecture(root: string, t: Target): void {
  const want = t.deb === 'amd64' ? 'x86-64' : 'aarch64';
  const files = elfFiles(root);
  if (files.length < 4)
    throw new Error(`${t.deb}: expected the runtime and three native modules, found ${files.length} ELF files`);
  for (const f of files) {
    if (elfMachine(f) !== want) throw new Error(`${relative(root, f)} is not built for ${want}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      arch: { type: 'string', default: ARCHES.join(',') },
      version: { type: 'string' },
      out: { type: 'string' },
      'no-tarball': { type: 'boolean', default: false },
      repo: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const repo = packageRoot();
  const packaging = join(repo, 'packaging');
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  const version = values.version ?? pkg.version;
  const repoKey = values.key ?? process.env.PUNCHGATE_REPO_KEY;
  if (values.repo && !repoKey)
    fail('--repo needs --key FINGERPRINT (or PUNCHGATE_REPO_KEY): the GnuPG key that signs it');
  // A wrong key is said before the long build, not after it.
  if (values.repo) signingKey(repoKey!);
  if (!/^[0-9][A-Za-z0-9.+~]*$/.test(version)) fail(`--version ${version}: not a Debian version without revision`);
  const arches = values.arch!.split(',').map((a) => targetOf(a.trim()));
  const out = values.out ?? join(repo, 'dist', 'package');
  const cache = join(repo, 'dist', 'package', 'cache');
  const work = join(out, 'work');

  if (process.platform !== 'linux' || process.arch !== 'x64') fail('builds on an amd64 (x86_64) Linux machine only');
  const npm = process.env.npm_execpath;
  const nodeGyp = process.env.npm_config_node_gyp;
  if (!npm || !nodeGyp) fail("run it through npm (npm run package): it uses npm and npm's node-gyp");
  for (const f of ['dist/punchgate.js', 'dist/punchgate.js.map', 'CHANGELOG.md']) {
    if (!existsSync(join(repo, f))) fail(`${f} is missing (npm run package builds first)`);
  }

  const pin = readPin(join(packaging, 'runtime.json'));
  const runtimes = new Map<DebArch, Runtime>();
  // amd64 is always staged: its files decide Depends (dpkg-shlibdeps), and its runtime runs npm.
  const staged: Target[] = [...new Map([targetOf('amd64'), ...arches].map((t) => [t.deb, t])).values()];
  for (const t of staged) runtimes.set(t.deb, fetchRuntime(t, pin, cache, npm));
  const host = runtimes.get('amd64')!;
  const tree = installProduction(repo, cache, host, npm);

  const time = sourceTime(repo);
  // The man page shows the defaults of this build, not of whoever runs it.
  delete process.env.PUNCHGATE_CONFIG;
  const page = manPage(buildProgram(), {
    version,
    date: new Date(time * 1000).toISOString().slice(0, 10),
    replace: [[repo, LIB]],
  });
  const changelog = debianChangelog({
    markdown: readFileSync(join(repo, 'CHANGELOG.md'), 'utf8'),
    version,
    maintainer: MAINTAINER,
    time,
  });
  const copyright = copyrightFile({ repo, tree, runtimeDir: host.dir, runtimeVersion: pin.version });

  await compileNatives({
    tree,
    targets: staged.map((t) => ({ target: t, runtime: runtimes.get(t.deb)! })),
    host,
    cache,
    nodeGyp,
  });
  const roots = new Map<DebArch, string>();
  for (const t of staged) {
    const root = join(work, t.deb, 'root');
    rmSync(join(work, t.deb), { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    say(t.deb, `staging the files (Node ${pin.version})`);
    const runtime = runtimes.get(t.deb)!;
    stageModules({ tree, dest: join(root, 'usr/lib/punchgate'), target: t, runtime, cache });
    assemblePayload({ repo, root, target: t, runtime, version, manPage: page, copyright, changelog });
    checkArchitecture(root, t);
    roots.set(t.deb, root);
  }
  const depends = sharedLibraryDepends(roots.get('amd64')!);
  if (roots.has('arm64')) checkSameNeeds(roots.get('amd64')!, roots.get('arm64')!, targetOf('arm64'));

  mkdirSync(out, { recursive: true });
  const made: string[] = [];
  for (const t of arches) {
    const root = roots.get(t.deb)!;
    made.push(
      buildDeb({
        packaging,
        root,
        target: t,
        version,
        depends,
        runtimeVersion: pin.version,
        maintainer: MAINTAINER,
        out,
      }),
    );
    if (!values['no-tarball']) made.push(buildTarball({ packaging, root, work, target: t, version, mtime: time, out }));
  }
  for (const f of made) process.stdout.write(`${f}  ${(statSync(f).size / 1e6).toFixed(1)} MB\n`);
  if (values.repo) {
    const debs = made.filter((f) => f.endsWith('.deb'));
    for (const a of addToRepository({ dir: values.repo, key: repoKey!, debs }))
      process.stdout.write(`${values.repo}: ${a.deb.package} ${a.deb.version} ${a.deb.architecture}\n`);
  }
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
