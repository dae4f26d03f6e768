import type { z } from 'zod';
import { choice, expectedType, foundValue, isSecretKey, quoted, scalarText } from './found.js';
import { nearMiss } from './near-miss.js';
import { descriptionAt, keysAt } from './schema-keys.js';

/** One problem of a config: where (a path into the config as written) and what, in plain words. */
export interface ConfigProblem {
  path: PropertyKey[];
  message: string;
}

type Issue = z.core.$ZodIssue;

/** zod's own wording, which a custom message (`'must be 1-32 letters...'`) replaces. */
const DEFAULT_MESSAGE = /^(Too (small|big)|Invalid (input|option|string|key|element|discriminator)|Unrecognized key)/;

const rawAt = (raw: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (v, seg) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg] : undefined),
    raw,
  );

/** The keys a config value names itself with in a list (`terminals[1] (gate-2)`). */
function nameOf(v: unknown): string | undefined {
  const name = v && typeof v === 'object' ? (v as { name?: unknown }).name : undefined;
  if (typeof name !== 'string' || name === '') return undefined;
  return /^[\w.-]{1,64}$/.test(name) ? name : quoted(name);
}

/** `terminals[1] (gate-2).port`: the path as written, each named list entry with its name. */
export function pathLabel(path: readonly PropertyKey[], raw?: unknown): string {
  let out = '';
  let here = raw;
  for (const seg of path) {
    here = here && typeof here === 'object' ? (here as Record<PropertyKey, unknown>)[seg] : undefined;
    if (typeof seg === 'number') {
      const name = nameOf(here);
      out += `[${seg}]${name ? ` (${name})` : ''}`;
    } else {
      out += out ? `.${String(seg)}` : String(seg);
    }
  }
  return out || '(top level)';
}

/** The message already names the value, as a word of its own (`port 70000 is out of range`). */
function names(message: string, value: string): boolean {
  const at = message.indexOf(value);
  if (at < 0 || value === '') return false;
  const before = message[at - 1];
  const after = message[at + value.length];
  return (before === undefined || /[\s"'(]/.test(before)) && (after === undefined || /[\s"'),:]/.test(after));
}

/** The value found, for a message that says what was expected: `, got the text "24370"`. */
function got(issue: { input?: unknown; path: readonly PropertyKey[] }, message: string, anyValue = false): string {
  const input = issue.input;
  const text = scalarText(input);
  // A check of a whole section (superRefine) carries the section, not the value it names.
  if (input === undefined || (text === undefined && !anyValue)) return '';
  const secret = isSecretKey(issue.path[issue.path.length - 1]);
  if (!secret && text !== undefined && (message.includes(text) || names(message, String(input)))) return '';
  return `, got ${foundValue(input, secret)}`;
}

/**
 * A number or true/false written in quotes (`port: "4370"`) is text in YAML: the fix is to drop
 * the quotes, said with the line to write, since `got the text "4370"` alone left a new admin
 * looking at a value that seemed right (a new-user trial). Empty for any other value.
 */
function unquoteFix(issue: { expected: string; input?: unknown; path: readonly PropertyKey[] }): string {
  if (typeof issue.input !== 'string') return '';
  const value = issue.input.trim();
  const fits =
    (issue.expected === 'number' && /^-?\d+(\.\d+)?$/.test(value)) ||
    (issue.expected === 'boolean' && /^(true|false)$/.test(value));
  if (!fits) return '';
  const key = issue.path[issue.path.length - 1];
  // A secret (a comm key) is never repeated, not even as the line to write.
  if (typeof key !== 'string' || isSecretKey(key)) return ' (write it without quotes)';
  return ` (write it without quotes: ${key}: ${value})`;
}

/** `must be one of "tcp", "udp", "auto", got the text "tcpp" (did you mean "tcp"?)`. */
function oneOf(values: readonly unknown[], issue: { input?: unknown; path: readonly PropertyKey[] }): string {
  const expected =
    values.length === 1 ? `must be ${choice(values[0])}` : `must be one of ${values.map(choice).join(', ')}`;
  if (issue.input === undefined)
    return `is required (${values.length === 1 ? '' : 'one of '}${values.map(choice).join(', ')})`;
  const strings = values.filter((v): v is string => typeof v === 'string');
  const hint = typeof issue.input === 'string' ? nearMiss(issue.input, strings) : undefined;
  return `${expected}${got(issue, expected)}${hint ? ` (did you mean "${hint}"?)` : ''}`;
}

function bound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string {
  const small = issue.code === 'too_small';
  const limit = small
    ? (issue as { minimum: number | bigint }).minimum
    : (issue as { maximum: number | bigint }).maximum;
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'number':
    case 'int':
    case 'bigint': {
      const rel = small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
      return `must be ${rel} ${String(limit)}`;
    }
    case 'string':
      if (small && Number(limit) === 1) return 'must not be empty';
      return `must be ${small ? 'at least' : 'at most'} ${String(limit)} characters long`;
    case 'array':
    case 'set':
      if (small && Number(limit) === 1) return 'must list at least one entry';
      return `must list ${small ? 'at least' : 'at most'} ${String(limit)} entries`;
    default:
      return issue.message;
  }
}

function format(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  const i = issue as { format: string; prefix?: string; suffix?: string; includes?: string; pattern?: string };
  switch (i.format) {
    case 'starts_with':
      return `must start with "${i.prefix ?? ''}"`;
    case 'ends_with':
      return `must end with "${i.suffix ?? ''}"`;
    case 'includes':
      return `must contain "${i.includes ?? ''}"`;
    case 'regex':
      return `must match ${i.pattern ?? 'the expected pattern'}`;
    default:
      return `must be a valid ${i.format}`;
  }
}

/** The message of one issue that is about one place (every code but unrecognized_keys). */
function describe(issue: Issue): string {
  const custom = !DEFAULT_MESSAGE.test(issue.message);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      // A key that says its form itself (adms.listen: HOST:PORT, not the number 8081).
      if (custom) return `${issue.message}${got(issue, issue.message, true)}`;
      const expected = `must be ${expectedType(issue.expected)}`;
      return `${expected}${got(issue, expected, true)}${unquoteFix(issue)}`;
    }
    case 'invalid_value':
      return custom ? `${issue.message}${got(issue, issue.message)}` : oneOf(issue.values, issue);
    case 'invalid_union': {
      if (custom) return `${issue.message}${got(issue, issue.message)}`;
      // A union of single values (`dataBits: 5 | 6 | 7 | 8`): one list of what is accepted.
      const branches = issue.errors;
      const values = branches.every((b) => b.length === 1 && b[0]!.code === 'invalid_value' && b[0]!.path.length === 0)
        ? branches.flatMap((b) => (b[0] as { values: unknown[] }).values)
        : undefined;
      if (values) return oneOf(values, issue);
      const first = branches.find((b) => b.length > 0)?.[0];
      return first ? describe({ ...first, path: [...issue.path, ...first.path] } as Issue) : 'is not accepted here';
    }
    case 'too_small':
    case 'too_big': {
      const message = custom ? issue.message : bound(issue);
      const showFound = issue.origin !== 'string' || custom;
      return showFound ? `${message}${got(issue, message)}` : message;
    }
    case 'invalid_format': {
      const message = custom ? issue.message : format(issue);
      return `${message}${got(issue, message)}`;
    }
    case 'not_multiple_of': {
      const message = custom ? issue.message : `must be a multiple of ${String(issue.divisor)}`;
      return `${message}${got(issue, message)}`;
    }
    default:
      return `${issue.message.replace(/^Invalid input: /, '')}${got(issue as { path: PropertyKey[] }, issue.message)}`;
  }
}

/** A discriminated union's answer to an unknown or missing `kind`: the kinds there are. */
function discriminator(issue: Extract<Issue, { code: 'invalid_union' }>): ConfigProblem {
  const { discriminator: key, options } = issue as unknown as { discriminator: string; options: unknown[] };
  const path = issue.path[issue.path.length - 1] === key ? issue.path : [...issue.path, key];
  const input =
    issue.input && typeof issue.input === 'object' ? (issue.input as Record<string, unknown>)[key] : undefined;
  return { path, message: oneOf(options, { input, path }) };
}

/** Keys the config names that the schema does not know, each with a near miss when there is one. */
function unknownKeys(
  issue: Extract<Issue, { code: 'unrecognized_keys' }>,
  schema: z.ZodType,
  raw: unknown,
  suggested: Set<string>,
): ConfigProblem[] {
  const section = rawAt(raw, issue.path);
  const present = section && typeof section === 'object' ? Object.keys(section) : [];
  const known = keysAt(schema, issue.path, raw);
  return issue.keys.map((key) => {
    const path = [...issue.path, key];
    if (key === 'token' && issue.path.length === 1 && issue.path[0] === 'hrms') {
      return {
        path,
        message: 'the token does not belong in the config: put the token in hrms.tokenFile or PUNCHGATE_HRMS_TOKEN',
      };
    }
    const hint = nearMiss(
      key,
      known.filter((k) => !present.includes(k)),
    );
    if (hint) {
      suggested.add(JSON.stringify([...issue.path, hint]));
      return { path, message: `unknown key: did you mean ${hint}?` };
    }
    return { path, message: known.length > 0 ? `unknown key (the keys here are: ${known.join(', ')})` : 'unknown key' };
  });
}

/**
 * The issue with the value as the file has it: zod reports the value after its own preprocessing
 * (a prefix dropped, a default filled in), or the whole section for a check of the section; what
 * a person should see is what they wrote at that place.
 */
function asWritten(issue: Issue, raw: unknown): Issue {
  // A check across keys (superRefine) names a key whose value is not what is wrong
  // (`tlsFingerprint: needs an https:// url`): its message says all there is.
  if (issue.code === 'custom') return issue;
  const written = rawAt(raw, issue.path);
  return written === undefined ? issue : ({ ...issue, input: written } as Issue);
}

/**
 * Every issue of a failed parse as problems in plain words. `raw` is the config as written
 * (parsed with `reportInput`, so each issue carries the value it is about).
 */
export function problemsOf(issues: readonly Issue[], schema: z.ZodType, raw: unknown): ConfigProblem[] {
  const suggested = new Set<string>();
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') out.push(...unknownKeys(issue, schema, raw, suggested));
    else if (issue.code === 'invalid_union' && 'discriminator' in issue) out.push(discriminator(issue));
    else
      out.push({ path: [...issue.path], message: required(describe(asWritten(issue, raw)), issue.path, schema, raw) });
  }
  // "did you mean baseUrl?" already says that baseUrl is missing.
  return out.filter((p) => !(p.message.startsWith('is required') && suggested.has(JSON.stringify(p.path))));
}

/** A bare `is required` with what the key expects, as its schema describes it (schema-keys.ts). */
function required(message: string, path: readonly PropertyKey[], schema: z.ZodType, raw: unknown): string {
  if (message !== 'is required') return message;
  const expected = descriptionAt(schema, path, raw);
  return expected ? `is required: ${expected}` : message;
}
