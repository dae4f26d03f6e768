import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { compareVersions, elfFiles, symbolVersions } from './elf.js';
import { run, say } from './run.js';
import type { Target } from './target.js';

/** The maintainer scripts and the lintian overrides, from packaging/debian. */
export const MAINTAINER_SCRIPTS = ['postinst', 'prerm', 'postrm'] as const;
export const CONFFILES = ['/etc/punchgate/punchgate.yaml'];

/**
 * A maintainer script as the package and the tarball ship it: `@VERSION@` is the version being
 * installed (dpkg hands postinst only the version it replaces; postinst compares the two to say
 * an upgrade from a downgrade).
 */
export function maintainerScript(
  packaging: string,
  name: (typeof MAINTAINER_SCRIPTS)[number],
  version: string,
): string {
  return readFileSync(join(packaging, 'debian', name), 'utf8').replaceAll('@VERSION@', version);
}

function walkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walkFiles(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
  );
}

/** Installed-Size: in KiB, as dpkg counts it (each file rounded up to a KiB). */
function installedSizeKiB(root: string): number {
  return walkFiles(root)
    .filter((f) => !relative(root, f).startsWith('DEBIAN'))
    .reduce((sum, f) => sum + Math.ceil(statSync(f).size / 1024), 0);
}

/**
 * Depends: from Debian's own dpkg-shlibdeps, run on the amd64 files (the build machine's
 * libraries and their symbols files). dpkg-shlibdeps cannot judge arm64 files on an amd64 machine
 * (the cross libraries belong to *-arm64-cross packages), so the arm64 package gets the same line,
 * once the arm64 files are shown to need no newer symbol versions than the amd64 ones (same
 * sources, same compiler release, same C library release).
 */
export function sharedLibraryDepends(amd64Root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchgate-shlibdeps-'));
  try {
    mkdirSync(join(dir, 'debian'));
    writeFileSync(join(dir, 'debian', 'control'), '');
    const out = run('dpkg-shlibdeps', ['-O', ...elfFiles(amd64Root)], { cwd: dir });
    const m = /^shlibs:Depends=(.*)$/m.exec(out);
    if (!m) throw new Error(`dpkg-shlibdeps said nothing usable: ${out}`);
    return m[1]!.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Throws unless every symbol version the arm64 files need is one the amd64 files need too, or older. */
export function checkSameNeeds(amd64Root: string, arm64Root: string, arm64: Target): void {
  const amd = symbolVersions(elfFiles(amd64Root), 'objdump');
  const arm = symbolVersions(elfFiles(arm64Root), arm64.tool('objdump'));
  for (const [family, version] of arm) {
    const mine = amd.get(family);
    if (mine === undefined || compareVersions(version, mine) > 0) {
      throw new Error(
        `the arm64 files need ${family}_${version}, newer than the amd64 files' ${family}_${mine ?? '(none)'}: Depends must be worked out for arm64 on its own`,
      );
    }
  }
}

export interface DebInput {
  packaging: string;
  root: string;
  target: Target;
  version: string;
  depends: string;
  runtimeVersion: string;
  maintainer: string;
  out: string;
}

function control(p: DebInput): string {
  return [
    'Package: punchgate',
    `Version: ${p.version}`,
    `Architecture: ${p.target.deb}`,
    `Maintainer: ${p.maintainer}`,
    `Installed-Size: ${installedSizeKiB(p.root)}`,
    // No nodejs: the package brings its own runtime; the shared libraries it and the native modules link.
    `Depends: ${p.depends}`,
    'Section: net',
    'Priority: optional',
    'Description: attendance device gateway: terminals -> journal -> HRMS',
    ' punchgate collects punches from time-attendance terminals (ZKTeco over TCP',
    ' or UDP, ZKTeco push terminals, Hikvision over ISAPI, serial card readers,',
    ' USB exports), keeps every punch in a journal on disk (SQLite) before it',
    ' answers a terminal, and delivers the punches to an HRMS, retrying until the',
    ' HRMS has each one.',
    ' .',
    ` The package brings its own Node.js runtime (${p.runtimeVersion}) and native`,
    " modules under /usr/lib/punchgate: the box's Node.js, if any, is neither used",
    ' nor changed. It runs as the systemd service punchgate, as the user punchgate.',
    '',
  ].join('\n');
}

function md5sums(root: string): string {
  return walkFiles(root)
    .filter((f) => !relative(root, f).startsWith('DEBIAN'))
    .map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(root, f)}`)
    .sort((a, b) => a.slice(34).localeCompare(b.slice(34)))
    .join('\n')
    .concat('\n');
}

/**
 * punchgate_<version>_<arch>.deb from the staged tree: DEBIAN/ with control, conffiles, md5sums and
 * the maintainer scripts; the lintian overrides (each explained) in their place; files owned by
 * root whoever builds (--root-owner-group), xz-compressed.
 */
export function buildDeb(p: DebInput): string {
  const overrides = join(p.root, 'usr/share/lintian/overrides/punchgate');
  mkdirSync(join(p.root, 'usr/share/lintian/overrides'), { recursive: true });
  copyFileSync(join(p.packaging, 'debian', 'lintian-overrides'), overrides);
  chmodSync(overrides, 0o644);
  const debian = join(p.root, 'DEBIAN');
  rmSync(debian, { recursive: true, force: true });
  mkdirSync(debian, { mode: 0o755 });
  for (const s of MAINTAINER_SCRIPTS) {
    writeFileSync(join(debian, s), maintainerScript(p.packaging, s, p.version));
    chmodSync(join(debian, s), 0o755);
  }
  writeFileSync(join(debian, 'conffiles'), `${CONFFILES.join('\n')}\n`);
  writeFileSync(join(debian, 'md5sums'), md5sums(p.root));
  writeFileSync(join(debian, 'control'), control(p));
  for (const f of ['conffiles', 'md5sums', 'control']) chmodSync(join(debian, f), 0o644);
  const deb = join(p.out, `punchgate_${p.version}_${p.target.deb}.deb`);
  say(p.target.deb, `dpkg-deb --build -> ${relative(process.cwd(), deb)}`);
  run('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', p.root, deb]);
  return deb;
}
