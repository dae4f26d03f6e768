import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONFFILES } from './deb.js';
import { STRIP } from './modules.js';
import { run } from './run.js';
import type { Runtime } from './runtime.js';
import type { Target } from './target.js';
import { launcher, packagedBackupUnit, packagedUnit } from './unit.js';

/**
 * The installed tree, the same for the .deb and the tarball:
 *   usr/bin/punchgate                          the launcher (bundled runtime, the unit's memory settings)
 *   usr/lib/punchgate/bin/node                 the pinned Node.js, stripped
 *   usr/lib/punchgate/dist/punchgate.js(.map)  the bundle
 *   usr/lib/punchgate/node_modules             the native modules for this architecture and runtime
 *   usr/lib/punchgate/config                   the example and demo configs (punchgate demo)
 *   usr/lib/punchgate/package.json             name, version (punchgate --version), type: module
 *   usr/lib/systemd/system/punchgate.service, usr/lib/sysusers.d/punchgate.conf,
 *   usr/lib/modules-load.d/punchgate.conf      from systemd/
 *   usr/lib/systemd/system/punchgate-backup.service, .timer   the nightly backup, from contrib/systemd/
 *   etc/punchgate/punchgate.yaml               the config (a conffile), from config/punchgate.example.yaml,
 *                                              0640: it may hold credentials (postinst gives it to
 *                                              root:punchgate)
 *   usr/share/man/man1/punchgate.1.gz, usr/share/doc/punchgate/...
 */
export interface PayloadInput {
  repo: string;
  root: string;
  target: Target;
  runtime: Runtime;
  version: string;
  manPage: string;
  copyright: string;
  /** CHANGELOG.md in Debian's format (changelog.ts). */
  changelog: string;
}

/**
 * The folders of contrib/ the package brings, in usr/share/doc/punchgate/contrib/: what
 * docs/fleet.md installs on each box from there (the Prometheus agent and alert rules, the
 * dashboards, the log uploader's settings). The Ansible role runs from a checkout, not the box.
 */
export const SHIPPED_CONTRIB = ['grafana', 'journald', 'prometheus'] as const;
export const SHIPPED_CONTRIB_PATH = '/usr/share/doc/punchgate/contrib';

/** The config: it may hold credentials, so it is not world-readable. */
const CONFIG = CONFFILES[0]!;

const writeFile = (path: string, text: string | Buffer, mode = 0o644) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
};

const copy = (from: string, to: string, mode = 0o644) => writeFile(to, readFileSync(from), mode);

/** gzip -9n: no name or time in the header, so the same input gives the same bytes. */
const gz = (data: string | Buffer) => gzipSync(data, { level: 9 });

export function assemblePayload(p: PayloadInput): void {
  const { repo, root, target: t } = p;
  const lib = join(root, 'usr/lib/punchgate');
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { description: string; license: string };

  mkdirSync(join(lib, 'bin'), { recursive: true });
  run(t.tool('strip'), [...STRIP, '-o', join(lib, 'bin/node'), p.runtime.node]);
  chmodSync(join(lib, 'bin/node'), 0o755);

  // The bundle is loaded by the launcher, not run as a script: its #! line (which names the box's
  // `node`) becomes a comment of the same length in lines, so that the source map still fits.
  const bundle = readFileSync(join(repo, 'dist/punchgate.js'), 'utf8');
  if (!bundle.startsWith('#!')) throw new Error('dist/punchgate.js: expected its #! line (npm run build)');
  writeFile(
    join(lib, 'dist/punchgate.js'),
    `// punchgate: run by /usr/bin/punchgate${bundle.slice(bundle.indexOf('\n'))}`,
  );
  copy(join(repo, 'dist/punchgate.js.map'), join(lib, 'dist/punchgate.js.map'));
  writeFile(
    join(lib, 'package.json'),
    `${JSON.stringify({ name: 'punchgate', version: p.version, description: pkg.description, license: pkg.license, type: 'module', private: true }, null, 2)}\n`,
  );
  for (const f of readdirSync(join(repo, 'config'))) copy(join(repo, 'config', f), join(lib, 'config', f));

  writeFile(join(root, 'usr/bin/punchgate'), launcher(), 0o755);
  writeFile(
    join(root, 'usr/lib/systemd/system/punchgate.service'),
    packagedUnit(readFileSync(join(repo, 'systemd/punchgate.service'), 'utf8')),
  );
  writeFile(
    join(root, 'usr/lib/systemd/system/punchgate-backup.service'),
    packagedBackupUnit(readFileSync(join(repo, 'contrib/systemd/punchgate-backup.service'), 'utf8')),
  );
  copy(
    join(repo, 'contrib/systemd/punchgate-backup.timer'),
    join(root, 'usr/lib/systemd/system/punchgate-backup.timer'),
  );
  copy(join(repo, 'systemd/punchgate.sysusers'), join(root, 'usr/lib/sysusers.d/punchgate.conf'));
  copy(join(repo, 'systemd/punchgate-modules.conf'), join(root, 'usr/lib/modules-load.d/punchgate.conf'));
  copy(join(repo, 'config/punchgate.example.yaml'), join(root, CONFIG.slice(1)));

  writeFile(join(root, 'usr/share/man/man1/punchgate.1.gz'), gz(p.manPage));
  const doc = join(root, 'usr/share/doc/punchgate');
  writeFile(join(doc, 'copyright'), p.copyright);
  writeFile(join(doc, 'changelog.gz'), gz(p.changelog));
  writeFile(join(doc, 'README.md.gz'), gz(readFileSync(join(repo, 'README.md'))));
  const docs = join(repo, 'docs');
  if (existsSync(docs)) {
    for (const f of readdirSync(docs).filter((n) => n.endsWith('.md'))) {
      writeFile(join(doc, 'docs', `${f}.gz`), gz(readFileSync(join(docs, f))));
    }
  }
  for (const dir of SHIPPED_CONTRIB) {
    for (const f of readdirSync(join(repo, 'contrib', dir)))
      copy(join(repo, 'contrib', dir, f), join(root, SHIPPED_CONTRIB_PATH.slice(1), dir, f));
  }
  normaliseModes(
    root,
    new Map([
      [join(root, 'usr/bin/punchgate'), 0o755],
      [join(lib, 'bin/node'), 0o755],
      [join(root, CONFIG.slice(1)), 0o640],
    ]),
  );
}

/**
 * Folders 0755, files 0644, the two programs 0755 and the config 0640, whatever the build
 * machine's umask and the modes npm packages came with: dpkg installs the modes it is given.
 */
function normaliseModes(dir: string, modes: ReadonlyMap<string, number>): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) {
      chmodSync(abs, 0o755);
      normaliseModes(abs, modes);
    } else if (e.isFile()) {
      chmodSync(abs, modes.get(abs) ?? 0o644);
    }
  }
}
