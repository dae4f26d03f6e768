import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MAINTAINER_SCRIPTS, maintainerScript } from './deb.js';
import { run, say } from './run.js';
import type { Target } from './target.js';

/**
 * punchgate-<version>-linux-<arch>.tar.gz, for boxes without dpkg: one folder holding the .deb's
 * files under root/ (without DEBIAN and the lintian overrides), the same maintainer scripts, and
 * install.sh, which puts the files in place and runs them as dpkg would.
 */
export function buildTarball(p: {
  packaging: string;
  root: string;
  work: string;
  target: Target;
  version: string;
  mtime: number;
  out: string;
}): string {
  const name = `punchgate-${p.version}-linux-${p.target.deb}`;
  const dir = join(p.work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Hard links: the tree is not copied, only named again.
  run('cp', ['-al', p.root, join(dir, 'root')]);
  rmSync(join(dir, 'root', 'DEBIAN'), { recursive: true, force: true });
  rmSync(join(dir, 'root', 'usr/share/lintian'), { recursive: true, force: true });
  for (const s of MAINTAINER_SCRIPTS) {
    writeFileSync(join(dir, s), maintainerScript(p.packaging, s, p.version));
    chmodSync(join(dir, s), 0o755);
  }
  const install = readFileSync(join(p.packaging, 'install.sh'), 'utf8')
    .replaceAll('@ARCH@', p.target.deb)
    .replaceAll('@MACHINE@', p.target.machine)
    .replaceAll('@VERSION@', p.version);
  writeFileSync(join(dir, 'install.sh'), install);
  chmodSync(join(dir, 'install.sh'), 0o755);
  chmodSync(dir, 0o755);
  const tgz = join(p.out, `${name}.tar.gz`);
  say(p.target.deb, `tar -> ${relative(process.cwd(), tgz)}`);
  run('tar', [
    '--sort=name',
    `--mtime=@${p.mtime}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '-I',
    'gzip -9n',
    '-cf',
    tgz,
    '-C',
    p.work,
    name,
  ]);
  rmSync(dir, { recursive: true, force: true });
  return tgz;
}
