/**
 * The manual (README.md and docs/*.md) stays true to the repository: every relative link leads to
 * a file that exists and, with `#anchor`, to a heading of it (GitHub's anchor rules); every
 * repository path it names in backticks (`src/...`, `test/...`) exists; the commands reference
 * has one row per command of `--help`; the promise table names real tests; the front page lists
 * every doc.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

const docs = readdirSync('docs')
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const manual = ['README.md', ...docs];
const read = (file: string) => readFileSync(file, 'utf8');

/** The text outside fenced code blocks, line by line (headings and links inside a fence are not). */
function prose(text: string): string[] {
  let fence = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) {
      fence = !fence;
      return false;
    }
    return !fence;
  });
}

/**
 * The anchors GitHub gives a file's headings: the heading's text as shown (code marks, emphasis
 * and link targets gone), lower case, punctuation and symbols removed (letters, marks, digits,
 * `_`, `-` and spaces stay), spaces as `-`; a repeated anchor gets `-1`, `-2`...
 */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6} +(.*?)#* *$/.exec(line);
    if (!m) continue;
    const shown = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = shown
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every link target of a file's prose (code spans, which may hold `](`, are left out). */
function linksOf(text: string): string[] {
  const lines = prose(text).map((l) => l.replace(/`[^`]*`/g, 'code'));
  return [...lines.join('\n').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** Every code span of a file's prose that is a path in the repository (`src/...`, `contrib/...`). */
function repoPathsOf(text: string): string[] {
  const spans = [
    ...prose(text)
      .join('\n')
      .matchAll(/`([^`\n]+)`/g),
  ].map((m) => m[1]!);
  return spans.filter((s) => /^(src|test|config|contrib|systemd|bench|docs)\/[\w./-]*$/.test(s));
}

describe('the manual (README.md and docs/)', () => {
  it('has the docs the front page promises, each opening with what it is for', () => {
    expect(docs.length).toBeGreaterThanOrEqual(12);
    for (const file of docs) {
      const lines = read(file).split('\n');
      expect(lines[0], file).toMatch(/^# \S/);
      const first = lines.slice(1).find((l) => l.trim() !== '');
      expect(first, `${file}: a paragraph saying what the file is for comes first`).toMatch(/^[A-Za-z(]/);
    }
  });

  it("lists every doc under the front page's 'Where to read on'", () => {
    const readme = read('README.md');
    const list = readme.slice(readme.indexOf('## Where to read on'));
    for (const file of docs) expect(list, file).toContain(`](${file})`);
  });

  it('links only to files that exist, and to headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of manual) {
      for (const link of linksOf(read(file))) {
        if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto: go out of the repository
        checked++;
        const [path, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
        if (target.startsWith('..') || !existsSync(target)) {
          broken.push(`${file}: ${link} (no file ${target})`);
          continue;
        }
        if (anchor === undefined) continue;
        if (statSync(target).isDirectory() || !target.endsWith('.md')) {
          broken.push(`${file}: ${link} (an anchor into a file that is not markdown)`);
        } else if (!anchorsOf(read(target)).has(anchor)) {
          broken.push(`${file}: ${link} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it('names only repository files that exist (paths on the box, /etc/..., are not checked)', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of manual) {
      for (const path of repoPathsOf(read(file))) {
        checked++;
        if (!existsSync(path)) missing.push(`${file}: ${path}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});

describe('the rules of the manual test itself', () => {
  it("makes GitHub's anchors", () => {
    const text = [
      '# Push terminals (ZKTeco ADMS / "cloud server")',
      '## The status page, `/metrics` and the health endpoints',
      '```sh',
      '# not a heading',
      '```',
      '## 1. Map the fields on both sides',
      '## Åsa and [a link](x.md)',
      '## Many sites',
      '## Many sites',
    ].join('\n');
    expect([...anchorsOf(text)]).toEqual([
      'push-terminals-zkteco-adms--cloud-server',
      'the-status-page-metrics-and-the-health-endpoints',
      '1-map-the-fields-on-both-sides',
      'åsa-and-a-link',
      'many-sites',
      'many-sites-1',
    ]);
  });

  it('finds links outside code, and repository paths in code spans', () => {
    const text = 'see [a](b.md#c) and `[x](not-a-link)`; `src/punch.ts`, `/etc/punchgate`, `npx vitest run test/x`\n';
    expect(linksOf(text)).toEqual(['b.md#c']);
    expect(repoPathsOf(text)).toEqual(['src/punch.ts']);
  });
});

/** Every command path of the CLI (`terminals sync-users`), from the program `--help` describes. */
function commandPaths(program: Command): string[] {
  const out: string[] = [];
  const walk = (cmd: Command, above: string[]) => {
    for (const sub of cmd.commands) {
      if (sub.name() === 'help') continue;
      const path = [...above, sub.name()];
      // A command that only groups others (`employees`, `sim`) has no row of its own.
      if (sub.commands.length === 0 || ['terminals', 'punches'].includes(sub.name())) out.push(path.join(' '));
      walk(sub, path);
    }
  };
  walk(program, []);
  return out;
}

/** The command each row of docs/commands.md's table names (`punchgate terminals users NAME` -> `terminals users`). */
function referenceRows(paths: readonly string[]): string[] {
  const rows = read('docs/commands.md')
    .split('\n')
    .filter((l) => l.startsWith('| `punchgate '));
  return rows.map((row) => {
    const words = row.slice('| `punchgate '.length).split(/[ `]/);
    // The longest command path the row starts with (`terminals users` before `terminals`).
    const match = [...paths]
      .sort((a, b) => b.length - a.length)
      .find((p) => p.split(' ').every((w, i) => words[i] === w));
    return match ?? words[0]!;
  });
}

describe('the commands reference (docs/commands.md)', () => {
  const paths = commandPaths(buildProgram());

  it('has one row for every command of --help, and none for a command that does not exist', () => {
    const rows = referenceRows(paths);
    expect(paths.length).toBeGreaterThan(25);
    expect(new Set(rows)).toEqual(new Set([...paths, '--version']));
  });
});

describe("the front page's table of promises and their tests", () => {
  it('names only test files that exist, and at least one for each promise', () => {
    const readme = read('README.md');
    const start = readme.indexOf('**Where each promise is proven.**');
    expect(start).toBeGreaterThan(0);
    const table = readme.slice(start, readme.indexOf('\n## ', start));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| promise') && !l.startsWith('|---'));
    expect(rows.length).toBeGreaterThanOrEqual(9);
    for (const row of rows) {
      const files = [...row.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1]!);
      expect(files.length, row).toBeGreaterThan(0);
      for (const f of files) expect(existsSync(f), f).toBe(true);
    }
  });
});
