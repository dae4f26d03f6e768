import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closure, manifestOf } from './modules.js';

const MIT = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;

/** The licence text a package ships (LICENSE, LICENCE.md, license...), or undefined. */
function licenceText(dir: string): string | undefined {
  const file = readdirSync(dir).find((n) => /^licen[cs]e(\..*)?$/i.test(n));
  return file ? readFileSync(join(dir, file), 'utf8').trim() : undefined;
}

function licenceName(license: unknown): string {
  if (typeof license === 'string') return license;
  if (license && typeof license === 'object' && 'type' in license) return String(license.type);
  return 'see its text';
}

/**
 * Node's LICENSE (for several of its libraries) and some npm packages quote the Apache License 2.0
 * in full; on Debian the text is in /usr/share/common-licenses, and the copyright file refers to it.
 */
export function referToCommonLicences(text: string): string {
  return text.replace(
    /^([ \t]*)Apache License\s*\n\s*Version 2\.0, January 2004[\s\S]*?END OF TERMS AND CONDITIONS/gm,
    '$1Apache License, Version 2.0: on Debian systems, its full text is in /usr/share/common-licenses/Apache-2.0.',
  );
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => (l.trim() === '' ? ' .' : ` ${l}`))
    .join('\n');

/**
 * /usr/share/doc/punchgate/copyright: punchgate's licence, then the licence of everything else the
 * package carries: the Node.js runtime (its LICENSE lists the libraries inside node), the npm
 * packages compiled into the bundle or shipped as native modules, and those whose C++ headers
 * were compiled into a native module. Each with the text its package ships.
 */
export function copyrightFile(opts: {
  repo: string;
  tree: string;
  runtimeDir: string;
  runtimeVersion: string;
}): string {
  const pkg = JSON.parse(readFileSync(join(opts.repo, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  // better-sqlite3 12 is for Node 20 and is not shipped (see packaging/lib/modules.ts).
  const roots = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((n) => n !== 'better-sqlite3');
  const dirs = closure(
    opts.tree,
    [...roots, 'node-addon-api', 'nan'].filter((n) => existsSync(join(opts.tree, 'node_modules', n))),
  );
  const parts = [
    'punchgate: attendance device gateway',
    '',
    'Files: all of punchgate (usr/bin/punchgate, usr/lib/punchgate/dist, usr/lib/punchgate/config,',
    ' the unit, the man page, the documentation)',
    'Copyright: the punchgate contributors',
    'License: MIT',
    indent(MIT),
    '',
    `Files: usr/lib/punchgate/bin/node (Node.js ${opts.runtimeVersion}, the official binary)`,
    'Copyright: Node.js contributors and the authors of the libraries it includes',
    'License: MIT and others, as below',
    indent(referToCommonLicences(readFileSync(join(opts.runtimeDir, 'LICENSE'), 'utf8').trim())),
  ];
  for (const rel of dirs) {
    const dir = join(opts.tree, rel);
    const m = manifestOf(dir);
    const where =
      m.name === 'better-sqlite3-napi' || m.name === 'better-sqlite3'
        ? ' (includes SQLite, which is in the public domain)'
        : '';
    parts.push(
      '',
      `Files: npm package ${m.name} ${m.version}${where}`,
      `License: ${licenceName(m.license)}`,
      indent(
        referToCommonLicences(
          licenceText(dir) ?? `The package ships no licence file; its package.json says: ${licenceName(m.license)}.`,
        ),
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}
