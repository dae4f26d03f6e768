/**
 * Adds built packages to a signed APT repository (reprepro), for boxes that install and upgrade
 * punchgate with apt alone (docs/fleet.md):
 *
 *   GNUPGHOME=~/punchgate-signing node dist/packaging/repo.js --repo DIR --key FINGERPRINT [file.deb ...]
 *
 * Without files, the .debs of package.json's version that `npm run package` built (both
 * architectures). `npm run package -- --repo DIR --key FINGERPRINT` builds and then does the same.
 * --allow-downgrade takes the repository back to an older version on purpose.
 * DIR/public is what a web server publishes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/util/package-paths.js';
import { addToRepository } from './lib/apt-repo.js';
import { ARCHES } from './lib/target.js';

function fail(message: string): never {
  process.stderr.write(`punchgate repo: ${message}\n`);
  process.exit(1);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      repo: { type: 'string' },
      key: { type: 'string' },
      'allow-downgrade': { type: 'boolean', default: false },
    },
  });
  if (!values.repo) fail('--repo DIR is needed (the repository folder; DIR/public is what a web server publishes)');
  const key = values.key ?? process.env.PUNCHGATE_REPO_KEY;
  if (!key) fail('--key FINGERPRINT (or PUNCHGATE_REPO_KEY) is needed: the GnuPG key that signs the repository');
  let debs = positionals;
  if (debs.length === 0) {
    const repo = packageRoot();
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    debs = ARCHES.map((a) => join(repo, 'dist', 'package', `punchgate_${version}_${a}.deb`));
  }
  const missing = debs.filter((f) => !existsSync(f));
  if (missing.length > 0) fail(`not found: ${missing.join(', ')} (npm run package builds them)`);
  const added = addToRepository({ dir: values.repo, key, debs, allowDowngrade: values['allow-downgrade'] });
  for (const a of added) {
    process.stdout.write(
      `${a.deb.package} ${a.deb.version} ${a.deb.architecture}${a.replaced && a.replaced !== a.deb.version ? ` (replaces ${a.replaced})` : a.replaced ? ' (already there)' : ''}\n`,
    );
  }
  process.stdout.write(
    `signed index: ${join(values.repo, 'public', 'dists')}; publish ${join(values.repo, 'public')}\n`,
  );
}

try {
  main();
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
