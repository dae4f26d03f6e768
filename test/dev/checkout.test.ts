import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The developer's checkout: `npm test` judges the project, not the scratch files a developer left
 * lying around (untracked, not ignored), and `npm pack` leaves nothing git would call new.
 * Real runs of the tools, on the stray files only where the tool takes a file list (the whole
 * runs are `npm test` itself). Outside a git checkout (CI's copy of the tree) there is nothing
 * untracked, and these tests have nothing to look at.
 */
const root = process.cwd();
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
const inCheckout = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root }).status === 0;
const bin = (pkg: string, file: string) => join(root, 'node_modules', pkg, file);
const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 180_000 });

describe.skipIf(!inCheckout)('a checkout with stray files in it', () => {
  it('npm test leaves them out: eslint, prettier, tsc, vitest and dependency-cruiser', () => {
    const tag = `stray-${process.pid}`;
    const files = {
      // Badly formatted, a lint error, a type error, a failing test, and two files importing each other.
      [`${tag}.ts`]: `const   unused : number = 'text'\n`,
      [`test/${tag}.test.ts`]: `import { it, expect } from 'vitest';\nit('fails', () => { expect(1).toBe(2) });\nconst n: number = 'x';\n`,
      [`test/${tag}/a.ts`]: `import { b } from './b.js';\nexport const a = (): number => b();\n`,
      [`test/${tag}/b.ts`]: `import { a } from './a.js';\nexport const b = (): number => a();\n`,
    };
    mkdirSync(join(root, 'test', tag));
    try {
      for (const [f, text] of Object.entries(files)) writeFileSync(join(root, f), text);
      expect(git('ls-files', '--others', '--exclude-standard').split('\n')).toEqual(
        expect.arrayContaining(Object.keys(files)),
      );
      const eslint = run([bin('eslint', 'bin/eslint.js'), ...Object.keys(files)]);
      // Named on the command line, an ignored file only earns a warning ("File ignored...").
      expect(eslint.stdout + eslint.stderr).toMatch(/File ignored/);
      expect(eslint.stdout + eslint.stderr).not.toMatch(/no-unused-vars|\d+:\d+\s+error/);
      expect(eslint.status).toBe(0);

      const typecheck = run(['.ci/typecheck.mjs', '--list-files']).stdout.split('\n');
      expect(typecheck).toContain('test/cli/listings.test.ts');
      for (const f of Object.keys(files)) expect(typecheck).not.toContain(f);

      const prettierFiles = run([
        '-e',
        "process.stdout.write(require('./.ci/untracked.cjs').trackedFiles().join('\\n'))",
      ]).stdout.split('\n');
      expect(prettierFiles).toContain('src/cli/program.ts');
      for (const f of Object.keys(files)) expect(prettierFiles).not.toContain(f);

      const depcruise = run([
        bin('dependency-cruiser', 'bin/dependency-cruise.mjs'),
        `test/${tag}`,
        '--config',
        '.dependency-cruiser.cjs',
      ]);
      expect(depcruise.stdout + depcruise.stderr).not.toMatch(/no-circular/);
      expect(depcruise.status, depcruise.stdout + depcruise.stderr).toBe(0);

      const vitest = run([bin('vitest', 'vitest.mjs'), 'list', '--project', 'utc', `test/${tag}.test.ts`]);
      // Listed, it would read "[utc] test/stray-....test.ts > fails".
      expect(vitest.status, vitest.stderr).toBe(0);
      expect(vitest.stdout).not.toContain(tag);
    } finally {
      for (const f of Object.keys(files)) rmSync(join(root, f), { force: true });
      rmSync(join(root, 'test', tag), { recursive: true, force: true });
    }
  }, 300_000);

  it('npm pack leaves no file git would call new', () => {
    const before = git('status', '--porcelain', '--untracked-files=all');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      scripts: Record<string, string>;
    };
    // The prepack script only builds (into dist/, ignored); the pack itself is run here.
    expect(pkg.scripts.prepack).toBe('npm run build');
    const tarball = join(root, `${pkg.name}-${pkg.version}.tgz`);
    const existed = existsSync(tarball);
    try {
      const r = spawnSync('npm', ['pack', '--ignore-scripts', '--silent'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(tarball)).toBe(true);
      expect(git('status', '--porcelain', '--untracked-files=all')).toBe(before);
    } finally {
      if (!existed) rmSync(tarball, { force: true });
    }
  }, 180_000);
});
