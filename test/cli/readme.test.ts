import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

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

/** The command each row of the README's section 7 table names (`punchgate terminals users NAME` -> `terminals users`). */
function readmeRows(paths: readonly string[]): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## 7. Commands'), readme.indexOf('## 8. '));
  const rows = section.split('\n').filter((l) => l.startsWith('| `punchgate '));
  return rows.map((row) => {
    const words = row.slice('| `punchgate '.length).split(/[ `]/);
    // The longest command path the row starts with (`terminals users` before `terminals`).
    const match = [...paths]
      .sort((a, b) => b.length - a.length)
      .find((p) => p.split(' ').every((w, i) => words[i] === w));
    return match ?? words[0]!;
  });
}

describe("the README's command table", () => {
  const paths = commandPaths(buildProgram());

  it('has one row for every command of --help, and none for a command that does not exist', () => {
    const rows = readmeRows(paths);
    expect(paths.length).toBeGreaterThan(25);
    expect(new Set(rows)).toEqual(new Set([...paths, '--version']));
  });
});

describe("the README's table of promises and their tests", () => {
  it('names only test files that exist, and at least one for each promise', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('**Where each promise is proven.**'), readme.indexOf('## 2. '));
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| promise') && !l.startsWith('|---'));
    expect(rows.length).toBeGreaterThanOrEqual(9);
    for (const row of rows) {
      const files = [...row.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1]!);
      expect(files.length, row).toBeGreaterThan(0);
      for (const f of files) expect(existsSync(new URL(`../../${f}`, import.meta.url)), f).toBe(true);
    }
  });
});
