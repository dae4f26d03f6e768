/**
 * Every config example of the manual (each ```yaml block of README.md and docs/*.md that is a
 * punchgate config or a piece of one) loads as punchgate loads a config file: a newcomer copies
 * these blocks into /etc/punchgate/punchgate.yaml, so a key the program does not know, a value of
 * the wrong type or a block indented wrong in a doc is a config that exits 78 on site. The keys a
 * block shows commented out (`# clearAfterDays: 90`), which the reader uncomments, must be keys
 * the program knows too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.js';
import { buildProgram } from '../../src/cli/program.js';
import { checkTerminalConfig } from '../../src/sources/build.js';

const manual = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The top-level keys of punchgate's config: a block with none of them is another program's YAML. */
const CONFIG_KEYS = new Set([
  'site',
  'journal',
  'hrms',
  'sinks',
  'delivery',
  'terminals',
  'adms',
  'status',
  'employees',
  'terminalUsers',
  'log',
]);

/** What a block needs around it to be a whole config, when it does not say it itself. */
const AROUND = {
  site: 'docs',
  journal: { path: '/var/lib/punchgate/journal.db' },
  hrms: { baseUrl: 'https://hr.example.com', tokenFile: '/etc/punchgate/token' },
};

interface Block {
  file: string;
  /** The line of the manual file the block's first line is on. */
  line: number;
  text: string;
}

/** Every ```yaml block of a manual file, with the line it starts on. */
function yamlBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ya?ml\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    out.push({ file, line: start + 1, text: lines.slice(start, end).join('\n') });
    i = end;
  }
  return out;
}

/**
 * A block as a whole config text, or undefined for another program's YAML. A block that is one
 * list item (`  - name: reception`, a terminal entry shown alone) is put under `terminals:`; the
 * keys a config needs and the block leaves out come from AROUND.
 */
function asConfig(block: Block): string | undefined {
  let text = block.text;
  let parsed: unknown;
  try {
    parsed = parse(text, { logLevel: 'error' }); // Ansible blocks carry tags (!unsafe) this reader need not know
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) || /^\s*- /.test(text)) {
    text = `terminals:\n${text.replace(/^(?! {2})/gm, '  ')}`;
    parsed = { terminals: [] };
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const keys = Object.keys(parsed);
  if (!keys.some((k) => CONFIG_KEYS.has(k))) return undefined;
  const missing = Object.entries(AROUND)
    .filter(([k]) => !keys.includes(k) && !(k === 'hrms' && keys.includes('sinks')))
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  // A push terminal shown alone stands beside the receiver its page shows just above it.
  if (!keys.includes('adms') && /^\s*(kind: adms|listen: true)\b/m.test(text))
    missing.push('adms: { listen: 0.0.0.0:8081 }');
  return [...missing, text].join('\n');
}

/** The problems of loading a config text, each `file:line: ...` of the manual file. */
function problemsOf(block: Block, text: string): string[] {
  const added = text.split('\n').length - block.text.split('\n').length;
  try {
    parseConfigText(text, 'block', 'config', checkTerminalConfig);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems.map((p) =>
      p.replace(/^block:(\d+)/, (_, n: string) => `${block.file}:${block.line + Number(n) - 1 - added}`),
    );
  }
}

/**
 * The block with the keys it shows commented out (`    # stateByte: 9   # old firmware only`)
 * uncommented, each where it stands: the reader is invited to, so each must be a key of its place.
 */
function uncommented(text: string): string {
  return text.replace(/^(\s*)# ?([A-Za-z][A-Za-z0-9_]*:(?: .*)?)$/gm, (line, indent: string, rest: string) => {
    // Prose in a comment ("# Note: ...") is no key: only keys written as the config writes them.
    return /^[a-z][A-Za-z0-9]*:/.test(rest) ? `${indent}${rest}` : line;
  });
}

/** The unknown-key problems of a text (the values of commented keys are examples, not checked). */
function unknownKeys(block: Block, text: string): string[] {
  return problemsOf(block, text).filter((p) => /unknown key/.test(p));
}

describe('the config examples of the manual', () => {
  const blocks = manual.flatMap(yamlBlocks);
  const configs = blocks.flatMap((b) => {
    const text = asConfig(b);
    return text === undefined ? [] : [{ block: b, text }];
  });

  it('finds the examples (every terminal family, the sinks, the receiver)', () => {
    expect(configs.length).toBeGreaterThanOrEqual(20);
  });

  it('loads every example as punchgate loads a config file', () => {
    // A fragment may name what the rest of its page sets up (a shift sync's terminals, a terminal's sinks).
    const elsewhere = /: no (terminal|sink) is named "/;
    const problems = configs.flatMap(({ block, text }) => problemsOf(block, text)).filter((p) => !elsewhere.test(p));
    expect(problems).toEqual([]);
  });

  it('knows every key an example shows commented out, at the place it stands', () => {
    const problems = configs.flatMap(({ block, text }) => unknownKeys(block, uncommented(text)));
    expect(problems).toEqual([]);
  });

  it('loads the commented example config/punchgate.example.yaml, and its commented keys are keys', () => {
    const file = 'config/punchgate.example.yaml';
    const block = { file, line: 1, text: readFileSync(file, 'utf8') };
    expect(problemsOf(block, block.text)).toEqual([]);
    expect(unknownKeys(block, uncommented(block.text))).toEqual([]);
  });

  it('catches a key the program does not know, at its line of the manual', () => {
    const block = {
      file: 'docs/x.md',
      line: 10,
      text: 'terminals:\n  - name: gate-1\n    kind: zk\n    hots: 10.0.0.1',
    };
    expect(problemsOf(block, asConfig(block)!).join('\n')).toMatch(
      /^docs\/x\.md:13: terminals\[0\] \(gate-1\)\.hots: unknown key/m,
    );
    const commented = {
      ...block,
      text: 'terminals:\n  - name: gate-1\n    kind: zk\n    host: 10.0.0.1\n    # syncClok: true',
    };
    expect(unknownKeys(commented, uncommented(asConfig(commented)!))).toHaveLength(1);
  });
});

/** Every `punchgate ...` command line of the manual: in sh blocks and in code spans of the prose. */
function commandLines(file: string): { file: string; line: number; words: string[] }[] {
  const out: { file: string; line: number; words: string[] }[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      // `sudo -u punchgate punchgate check`: the command is the second "punchgate".
      for (const m of text
        .replace(/sudo -u punchgate /g, '')
        .matchAll(/(?:^|[\s`(]|sudo -u punchgate )punchgate((?: +[^\s`|;&#)]+)*)/g)) {
        const words = m[1]!.trim().split(/ +/).filter(Boolean);
        if (words.length > 0) out.push({ file, line: i + 1, words });
      }
    });
  return out;
}

/**
 * The options of a command line that its command does not take; none for another program's line.
 * An option belongs to the command the line ends at, or to punchgate itself (`--config`): one of
 * `punches` given to `punches export` is refused by the program (commander would hand it to
 * `punches`, and export would ignore it).
 */
function unknownOptions(program: Command, words: string[]): string[] {
  // `journalctl -u punchgate -f`, `sudo -u punchgate ...`: "punchgate" as a unit or user name.
  if (!words.some((w) => program.commands.some((c) => c.name() === w))) return [];
  let cmd = program;
  const names: string[] = [];
  for (const w of words) {
    const sub = w.startsWith('-') ? undefined : cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub) {
      cmd = sub;
      names.push(sub.name());
    }
  }
  const takes = (c: Command, flag: string) => c.options.some((o) => o.long === flag || o.short === flag);
  return words
    .map((w) => w.split('=')[0]!)
    .filter((flag) => /^-[A-Za-z]$|^--[a-z][\w-]*$/.test(flag) && flag !== '--help' && flag !== '-h')
    .filter((flag) => !takes(program, flag) && !takes(cmd, flag))
    .map((flag) => `${flag} (punchgate ${names.join(' ')})`);
}

describe('the command lines of the manual', () => {
  it('use only options the commands have', () => {
    const program = buildProgram();
    const lines = manual.flatMap(commandLines);
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.filter((l) => program.commands.some((c) => c.name() === l.words[0])).length).toBeGreaterThan(150);
    const bad = lines.flatMap((l) =>
      unknownOptions(program, l.words).map((u) => `${l.file}:${l.line}: ${u}: ${l.words.join(' ')}`),
    );
    expect(bad).toEqual([]);
  });

  /**
   * A new-user trial (F6) copied the Security PUSH simulator's example: it registered, polled and
   * never uploaded a punch (it makes none without --punches or --punch-every), and the rehearsal
   * showed "received 0" with no word why. A push terminal simulator of the manual punches.
   */
  it('start push terminal simulators that punch', () => {
    const rehearsals = manual
      .flatMap(commandLines)
      .filter((l) => l.words[0] === 'sim' && l.words[1] === 'push-terminal' && isServer(l.words));
    expect(rehearsals.length).toBeGreaterThanOrEqual(2);
    expect(rehearsals.filter((l) => !punches(l.words)).map((l) => `${l.file}:${l.line}: ${l.words.join(' ')}`)).toEqual(
      [],
    );
    expect(punches(['sim', 'push-terminal', '--server', 'http://127.0.0.1:8081', '--serial', 'SF5L0001'])).toBe(false);
  });

  it('catches an option a command does not have, and leaves other programs alone', () => {
    const program = buildProgram();
    expect(unknownOptions(program, ['punches', 'export', '--limit', '10'])).toEqual([
      '--limit (punchgate punches export)',
    ]);
    expect(unknownOptions(program, ['punches', 'export', '--since', '2026-11-01'])).toEqual([]);
    expect(unknownOptions(program, ['--config', 'x.yaml', 'terminals', 'users', 'gate-1', '--json'])).toEqual([]);
    expect(unknownOptions(program, ['-f', '-p', 'warning'])).toEqual([]);
  });
});

/** A simulator line that names a real address (not the synopsis's `--server URL`). */
function isServer(words: string[]): boolean {
  return /^https?:\/\//.test(words[words.indexOf('--server') + 1] ?? '');
}

/** A push terminal simulator's line that makes punches: records at the start, or one every N s. */
function punches(words: string[]): boolean {
  return words.includes('--punch-every') || words.some((w, i) => w === '--punches' && Number(words[i + 1]) > 0);
}
