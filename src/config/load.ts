import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { escapeControls } from '../util/terminal-text.js';
import { problemsOf, pathLabel, type ConfigProblem } from './issues.js';
import { pastedSecretProblems } from './pasted-secrets.js';
import { configSchema, type Config } from './schema.js';
import type { TerminalConfig } from './terminals.js';
import { lineOf } from './yaml-position.js';
import { yamlProblems } from './yaml-problems.js';

/**
 * Checks of one terminal that the schema cannot make (a serial pattern compiles, a code map is
 * readable...). They need a source's own parsers, which the config must not import, so the
 * caller passes them in (src/sources/build.ts: checkTerminalConfig). Returns `path: message` lines;
 * `at` is the terminal's place in the config, e.g. `terminals[2]`.
 */
export type TerminalCheck = (cfg: TerminalConfig, at: string) => string[];

/** A config that cannot be used: every problem is one `file:line: path (name): message` line; exit 78. */
export class ConfigError extends ExitError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'), EXIT.CONFIG);
    this.name = 'ConfigError';
  }
}

/** Where a config came from, so that each problem names its file and line. */
export interface ConfigSource {
  file: string;
  doc: Document;
  lines: LineCounter;
}

/** `file:line: path (name): message`, or `path (name): message` for a config that is no file. */
function problemLine(p: ConfigProblem, raw: unknown, source?: ConfigSource): string {
  // Keys and values come from the file as written: shown with control characters escaped.
  const where = escapeControls(`${pathLabel(p.path, raw)}: ${p.message}`);
  if (!source) return where;
  const line = lineOf(source.doc, source.lines, p.path);
  return `${source.file}${line ? `:${line}` : ''}: ${where}`;
}

function problemLines(problems: ConfigProblem[], raw: unknown, source?: ConfigSource): string[] {
  const byLine = (p: ConfigProblem) => (source ? (lineOf(source.doc, source.lines, p.path) ?? 0) : 0);
  const sorted = source ? [...problems].sort((a, b) => byLine(a) - byLine(b)) : problems;
  return [...new Set(sorted.map((p) => problemLine(p, raw, source)))];
}

/** A terminal check's `terminals[2].pattern: message` line taken apart again, to be located. */
function checkProblem(line: string, at: PropertyKey[], atText: string): ConfigProblem {
  const rest = line.startsWith(atText) ? line.slice(atText.length) : undefined;
  const m = rest === undefined ? null : /^((?:\.[A-Za-z0-9_-]+|\[\d+\])*): ([\s\S]*)$/.exec(rest);
  if (!m) return { path: at, message: line };
  const sub = [...m[1]!.matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)].map((x) =>
    x[1] !== undefined ? x[1] : Number(x[2]),
  );
  return { path: [...at, ...sub], message: m[2]! };
}

/** Validates a parsed config object. Relative paths are resolved against `baseDir`. */
export function parseConfig(
  raw: unknown,
  baseDir = process.cwd(),
  checkTerminal?: TerminalCheck,
  source?: ConfigSource,
): Config {
  const input = raw ?? {};
  // A secret pasted where a file name belongs: said with the other problems, never echoed.
  const pasted = pastedSecretProblems(input, baseDir);
  const result = configSchema.safeParse(input, { reportInput: true });
  if (!result.success) {
    const problems = [...problemsOf(result.error.issues, configSchema, input), ...pasted];
    throw new ConfigError(problemLines(problems, input, source));
  }
  const config = resolvePaths(result.data, baseDir);
  // Checks the schema cannot express (a serial terminal's pattern, time format and code map).
  const problems = [
    ...pasted,
    ...(checkTerminal
      ? config.terminals.flatMap((t, i) =>
          checkTerminal(t, `terminals[${i}]`).map((l) => checkProblem(l, ['terminals', i], `terminals[${i}]`)),
        )
      : []),
  ];
  if (problems.length > 0) throw new ConfigError(problemLines(problems, input, source));
  return config;
}

function resolvePaths(c: Config, baseDir: string): Config {
  const abs = (p: string | undefined) => (p === undefined ? undefined : resolve(baseDir, p));
  const journalPath = resolve(baseDir, c.journal.path);
  return {
    ...c,
    journal: { ...c.journal, path: journalPath },
    ...(c.hrms
      ? {
          hrms: {
            ...c.hrms,
            tokenFile: abs(c.hrms.tokenFile),
            caFile: abs(c.hrms.caFile),
            proxyCredentialsFile: abs(c.hrms.proxyCredentialsFile),
          },
        }
      : {}),
    sinks: c.sinks.map((s) =>
      s.kind === 'hrms'
        ? {
            ...s,
            tokenFile: abs(s.tokenFile),
            caFile: abs(s.caFile),
            proxyCredentialsFile: abs(s.proxyCredentialsFile),
          }
        : s.kind === 'frappe'
          ? {
              ...s,
              apiKeyFile: resolve(baseDir, s.apiKeyFile),
              apiSecretFile: resolve(baseDir, s.apiSecretFile),
              caFile: abs(s.caFile),
            }
          : { ...s, apiKeyFile: resolve(baseDir, s.apiKeyFile), caFile: abs(s.caFile) },
    ),
    status: {
      ...c.status,
      path: abs(c.status.path) ?? join(dirname(journalPath), 'status.txt'),
      authTokenFile: abs(c.status.authTokenFile),
    },
    terminals: c.terminals.map((t) =>
      t.kind === 'serial'
        ? { ...t, codeMap: abs(t.codeMap) }
        : t.kind === 'hikvision' || t.kind === 'biotime'
          ? { ...t, passwordFile: abs(t.passwordFile), caFile: abs(t.caFile) }
          : t.kind === 'dahua'
            ? { ...t, passwordFile: abs(t.passwordFile) }
            : t,
    ),
  };
}

/**
 * What to try when the config file cannot be read: a newcomer's first command without --config
 * meets ENOENT for /etc/punchgate/punchgate.yaml, and a command run as another user EACCES.
 */
function unreadableFix(code: string | undefined): string {
  if (code === 'ENOENT')
    return ': no such file: name your config with --config FILE (or the environment variable PUNCHGATE_CONFIG), or write this one from the commented example config/punchgate.example.yaml (docs/configure.md)';
  if (code === 'EACCES' || code === 'EPERM')
    return ': this user may not read it: run the command as the service user (sudo -u punchgate punchgate ...) or as root';
  if (code === 'EISDIR') return ': this is a folder: name the YAML file in it with --config FILE';
  return '';
}

/** Reads, parses and validates a YAML config file. Throws ConfigError (exit 78). */
export function loadConfig(file: string, checkTerminal: TerminalCheck): Config {
  return loadConfigFile(file, checkTerminal).config;
}

/** A config as it loaded, with the text it was made from (punchgate run keeps a copy: last-good.ts). */
export interface LoadedConfig {
  config: Config;
  text: string;
}

/** loadConfig, keeping the text that was read. */
export function loadConfigFile(file: string, checkTerminal: TerminalCheck): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([`${file}: cannot read the config file (${code ?? String(e)})${unreadableFix(code)}`]);
  }
  return { config: parseConfigText(text, file, dirname(resolve(file)), checkTerminal), text };
}

/** Parses and validates config text read from `file` (named in every problem); relative paths resolve against `baseDir`. */
export function parseConfigText(text: string, file: string, baseDir: string, checkTerminal?: TerminalCheck): Config {
  const lines = new LineCounter();
  // Merge keys (`<<: *defaults`) are allowed: a site with many alike terminals writes their common keys once.
  const doc = parseDocument(text, { prettyErrors: true, lineCounter: lines, merge: true });
  if (doc.errors.length > 0) throw new ConfigError(yamlProblems(doc.errors, text, file));
  let raw: unknown;
  try {
    raw = doc.toJS();
  } catch (e) {
    // Aliases that expand without end (a "billion laughs" file): said at the first alias's line.
    let at = 1;
    visit(doc, {
      Alias(_, node) {
        if (node.range) at = lines.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
    const why = e instanceof Error ? e.message : String(e);
    throw new ConfigError([
      /alias/i.test(why)
        ? `${file}:${at}: aliases (*name): expected a config of reasonable size, found aliases that expand to too many values: write the values out`
        : `${file}:${at}: ${why}`,
    ]);
  }
  return parseConfig(raw, baseDir, checkTerminal, { file, doc, lines });
}
