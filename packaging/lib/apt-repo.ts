import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { run, say } from './run.js';

/**
 * A signed APT repository of punchgate packages, made and kept with reprepro (Debian's standard
 * tool for it). The folder holds reprepro's own files (conf/, db/) and, under public/, what a web
 * server publishes: dists/ (the signed index: InRelease, Release, Release.gpg), pool/ (the .deb
 * files) and the public key (punchgate.gpg for /etc/apt/keyrings, punchgate.asc to read).
 * docs/fleet.md says how to host it and how a box trusts it.
 *
 * reprepro keeps one version per architecture (5.3, Debian 12): adding a newer version replaces
 * the older one in the index; going back is an explicit choice (`allowDowngrade`).
 */

/** The suite boxes name in their sources entry (`Suites: stable`); the Release's fields unattended-upgrades matches. */
export const SUITE = 'stable';
export const ORIGIN = 'punchgate';
export const LABEL = 'punchgate';
export const COMPONENT = 'main';
const ARCHITECTURES = ['amd64', 'arm64'];

export interface DebFacts {
  file: string;
  package: string;
  version: string;
  architecture: string;
}

export interface Added {
  deb: DebFacts;
  /** The version the repository held before for that architecture (undefined: none). */
  replaced: string | undefined;
}

/** The control fields of a .deb that decide where it goes. */
export function debFacts(file: string): DebFacts {
  const [pkg, version, architecture] = run('dpkg-deb', [
    '--show',
    '--showformat=${Package}\\t${Version}\\t${Architecture}',
    file,
  ])
    .trim()
    .split('\t');
  if (!pkg || !version || !architecture) throw new Error(`${file}: not a .deb with Package, Version and Architecture`);
  return { file, package: pkg, version, architecture };
}

/** dpkg's order of two versions: negative, 0 or positive. */
function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const lt = spawnSync('dpkg', ['--compare-versions', a, 'lt', b]);
  return lt.status === 0 ? -1 : 1;
}

/** The full fingerprint of a secret key GnuPG (GNUPGHOME) holds, or a clear refusal. */
export function signingKey(key: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync('gpg', ['--batch', '--with-colons', '--list-secret-keys', key], { encoding: 'utf8', env });
  if (r.error) throw new Error(`gpg: ${r.error.message} (apt-get install gnupg)`);
  const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(r.stdout)?.[1];
  if (r.status !== 0 || !fpr) {
    throw new Error(
      `--key ${key}: no secret key of that name in ${env.GNUPGHOME ?? '~/.gnupg'} (set GNUPGHOME to the keyring that holds the repository's signing key; gpg --list-secret-keys lists them)`,
    );
  }
  return fpr;
}

/** conf/ of the repository: written every time, so a new key or a new architecture takes effect. */
function writeConf(dir: string, fingerprint: string): void {
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(
    join(dir, 'conf', 'distributions'),
    [
      `Origin: ${ORIGIN}`,
      `Label: ${LABEL}`,
      `Suite: ${SUITE}`,
      `Codename: ${SUITE}`,
      `Architectures: ${ARCHITECTURES.join(' ')}`,
      `Components: ${COMPONENT}`,
      'Description: punchgate, the attendance device gateway',
      `SignWith: ${fingerprint}`,
      '',
    ].join('\n'),
  );
  // What a web server publishes is under public/; conf/ and db/ stay private.
  writeFileSync(join(dir, 'conf', 'options'), 'outdir +b/public\n');
}

/** The version the repository holds for a package and architecture (undefined: none). */
function heldVersion(dir: string, pkg: string, arch: string): string | undefined {
  const out = run('reprepro', ['-b', dir, '-A', arch, 'list', SUITE, pkg]);
  return new RegExp(`: ${pkg} (\\S+)$`, 'm').exec(out)?.[1];
}

/**
 * Adds .deb files to the repository in `dir` (made on first use), signed with `key` (a
 * fingerprint, or any name gpg knows, in GNUPGHOME). Refuses a version the repository already
 * holds with other contents (a rebuilt package needs a new version: boxes would not take it) and,
 * unless `allowDowngrade`, one older than it holds.
 */
export function addToRepository(opts: {
  dir: string;
  key: string;
  debs: readonly string[];
  allowDowngrade?: boolean;
}): Added[] {
  const fingerprint = signingKey(opts.key);
  writeConf(opts.dir, fingerprint);
  const added: Added[] = [];
  const debs = opts.debs.map(debFacts);
  for (const deb of debs) {
    if (!ARCHITECTURES.includes(deb.architecture))
      throw new Error(
        `${basename(deb.file)}: architecture ${deb.architecture}, the repository takes ${ARCHITECTURES.join(', ')}`,
      );
    const held = heldVersion(opts.dir, deb.package, deb.architecture);
    if (held !== undefined) {
      const order = compareVersions(deb.version, held);
      if (order === 0) {
        // The same file again is fine (reprepro says so and changes nothing); other contents are not.
        const pool = join(opts.dir, 'public', 'pool', COMPONENT, deb.package[0]!, deb.package, basename(deb.file));
        if (existsSync(pool) && spawnSync('cmp', ['-s', pool, deb.file]).status === 0) {
          added.push({ deb, replaced: held });
          continue;
        }
        throw new Error(
          `${basename(deb.file)}: the repository already holds ${deb.package} ${held} for ${deb.architecture} with other contents: build it with a new version (npm run package -- --version ...)`,
        );
      }
      if (order < 0 && !opts.allowDowngrade) {
        throw new Error(
          `${basename(deb.file)}: the repository holds the newer ${held} for ${deb.architecture}; to take boxes back to ${deb.version} on purpose, add it with --allow-downgrade (then apt-get install --allow-downgrades ${deb.package}=${deb.version} on each box)`,
        );
      }
      if (order < 0) run('reprepro', ['-b', opts.dir, '-A', deb.architecture, 'remove', SUITE, deb.package]);
    }
    say(deb.architecture, `reprepro includedeb ${SUITE} ${basename(deb.file)}${held ? ` (was ${held})` : ''}`);
    run('reprepro', ['-b', opts.dir, 'includedeb', SUITE, deb.file]);
    added.push({ deb, replaced: held });
  }
  // The index is signed anew (also when nothing changed: a new key, an expired signature).
  run('reprepro', ['-b', opts.dir, 'export', SUITE]);
  const pub = join(opts.dir, 'public');
  const binaryKey = spawnSync('gpg', ['--batch', '--export', fingerprint]);
  if (binaryKey.status !== 0 || binaryKey.stdout.length === 0) throw new Error(`gpg --export ${fingerprint} failed`);
  writeFileSync(join(pub, 'punchgate.gpg'), binaryKey.stdout);
  writeFileSync(join(pub, 'punchgate.asc'), run('gpg', ['--batch', '--armor', '--export', fingerprint]));
  // What a box will do: the index verifies with the published key alone.
  run('gpgv', ['--keyring', join(pub, 'punchgate.gpg'), join(pub, 'dists', SUITE, 'InRelease')]);
  return added;
}
