import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { configSchema, type Config } from './schema.js';
import type { TerminalConfig } from './terminals.js';

/**
 * Checks of one terminal that the schema cannot make (a serial pattern compiles, a code map is
 * readable...). They need a source's own parsers, which the config must not import, so the
 * caller passes them in (src/sources/build.ts: checkTerminalConfig). Returns `path: message` lines;
 * `at` is the terminal's place in the config, e.g. `terminals[2]`.
 */
export type TerminalCheck = (cfg: TerminalConfig, at: string) => string[];

/** A config that cannot be used: every problem is one `path: message` line; exit 78. */
export class ConfigError extends ExitError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'), EXIT.CONFIG);
    this.name = 'ConfigError';
  }
}

/** `terminals[0].host` style path of a zod issue. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(top level)';
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys')
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_union' && 'discriminator' in issue) return issue.message;
  return issue.message.replace(/^Invalid input: /, '');
}

/** Validates a parsed config object. Relative paths are resolved against `baseDir`. */
export function parseConfig(raw: unknown, baseDir = process.cwd(), checkTerminal?: TerminalCheck): Config {
  const result = configSchema.safeParse(raw ?? {});
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${issuePath(i.path)}: ${issueMessage(i)}`));
  }
  const config = resolvePaths(result.data, baseDir);
  // Checks the schema cannot express (a serial terminal's pattern, time format and code map).
  const problems = checkTerminal ? config.terminals.flatMap((t, i) => checkTerminal(t, `terminals[${i}]`)) : [];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function resolvePaths(c: Config, baseDir: string): Config {
  const abs = (p: string | undefined) => (p === undefined ? undefined : resolve(baseDir, p));
  const journalPath = resolve(baseDir, c.journal.path);
  return {
    ...c,
    journal: { ...c.journal, path: journalPath },
    hrms: {
      ...c.hrms,
      tokenFile: abs(c.hrms.tokenFile),
      caFile: abs(c.hrms.caFile),
      proxyCredentialsFile: abs(c.hrms.proxyCredentialsFile),
    },
    status: {
      ...c.status,
      path: abs(c.status.path) ?? join(dirname(journalPath), 'status.txt'),
      authTokenFile: abs(c.status.authTokenFile),
    },
    terminals: c.terminals.map((t) =>
      t.kind === 'serial'
        ? { ...t, codeMap: abs(t.codeMap) }
        : t.kind === 'hikvision'
          ? { ...t, passwordFile: abs(t.passwordFile), caFile: abs(t.caFile) }
          : t,
    ),
  };
}

/** Reads, parses and validates a YAML config file. Throws ConfigError (exit 78). */
export function loadConfig(file: string, checkTerminal: TerminalCheck): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError([`${file}: cannot read the config file (${code ?? String(e)})`]);
  }
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line;
        return `${file}${line ? `:${line}` : ''}: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
      }),
    );
  }
  return parseConfig(doc.toJS(), dirname(resolve(file)), checkTerminal);
}
