import type { SerialTerminalConfig } from '../../config/terminals.js';
import { codeProblem, wallClockAt } from '../../punch.js';
import type { Clock } from '../../util/clock.js';
import { compileTimeFormat, type TimeFormat } from './time-format.js';

/**
 * Turns one serial line into a punch's code and time.
 *
 * format regex: `pattern` (named groups `code` and `time`) + `timeFormat`; the time is the
 * terminal's own wall clock. format card: the line is a card number and the time is the
 * box's clock in the terminal's zone at the moment the line arrived.
 */

/**
 * Pattern used when a `format: regex` terminal names none: `CODE,YYYY-MM-DD HH:mm:ss`,
 * e.g. `1042,2026-11-22 08:00:01` (what `punchgate sim serial --format regex` prints).
 */
export const DEFAULT_SERIAL_PATTERN = '^(?<code>[^,\\s]+)\\s*,\\s*(?<time>\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})$';

/**
 * The pattern of a `format: regex` terminal that names none: `CODE,TIME`, the time being what its
 * `timeFormat` reads. A clock that prints `1044,22/11/2026 08:00:00` needs only
 * `timeFormat: DD/MM/YYYY HH:mm:ss`; with the default pattern's fixed ISO time group every line of
 * it was malformed while the config passed its check (found by a capture trial).
 */
export function defaultSerialPattern(time: TimeFormat): string {
  return `^(?<code>[^,\\s]+)\\s*,\\s*(?<time>${time.expression})$`;
}

/**
 * Serial lines are read byte for byte (latin1), so a code is also held to ASCII: a byte above 0x7e
 * in a code is line noise (a wrong baud rate or parity), not a letter.
 */
const ASCII = /^[\x21-\x7e]*$/;
/** A card number as card readers print it. */
const CARD_CHARS = /^[0-9A-Za-z]{1,32}$/;
/** Blanks and control characters around a line (STX/ETX framing, stray NULs). */
// eslint-disable-next-line no-control-regex -- matching control bytes is the point here
const EDGE_JUNK = /^[\x00-\x20\x7f]+|[\x00-\x20\x7f]+$/g;
/** The same, for a frame's text: what is left once its framing bytes and blanks are taken off. */
// eslint-disable-next-line no-control-regex -- matching control bytes is the point here
export const EDGE_CONTROL = /^[\x00-\x20\x7f]+|[\x00-\x20\x7f]+$/g;

export type ParsedLine =
  { kind: 'blank' } | { kind: 'malformed'; reason: string } | { kind: 'punch'; code: string; logTime: string };

export type LineParser = (line: string) => ParsedLine;

export interface CompiledPattern {
  regex?: RegExp;
  problems: string[];
}

/** Compiles a `pattern` and checks that it has the named groups `code` and `time`. */
export function compileLinePattern(pattern: string): CompiledPattern {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (e) {
    return { problems: [`is not a valid regular expression (${(e as Error).message})`] };
  }
  // An empty alternative makes the pattern match '', which lists every named group.
  const groups = Object.keys(new RegExp(`(?:${pattern})|`).exec('')?.groups ?? {});
  const problems = ['code', 'time']
    .filter((g) => !groups.includes(g))
    .map((g) => `needs a named group "${g}", written (?<${g}>...)`);
  return problems.length > 0 ? { problems } : { regex, problems };
}

export function createLineParser(cfg: SerialTerminalConfig, clock: Clock): LineParser {
  if (cfg.format === 'card') return (line) => parseCardLine(line, clock, cfg.timezone);
  const time = compileTimeFormat(cfg.timeFormat);
  const pattern = compileLinePattern(
    cfg.pattern ?? (time.format ? defaultSerialPattern(time.format) : DEFAULT_SERIAL_PATTERN),
  );
  if (!pattern.regex || !time.format) {
    throw new Error(`terminal ${cfg.name}: ${[...pattern.problems, ...time.problems].join('; ')}`);
  }
  const regex = pattern.regex;
  const format = time.format;
  return (line) => parseRegexLine(line, regex, format);
}

function clean(line: string): ParsedLine | string {
  const text = line.replace(EDGE_JUNK, '');
  if (text !== '') return text;
  return line.trim() === '' ? { kind: 'blank' } : { kind: 'malformed', reason: 'control characters only' };
}

function parseRegexLine(line: string, regex: RegExp, format: TimeFormat): ParsedLine {
  const text = clean(line);
  if (typeof text !== 'string') return text;
  const m = regex.exec(text);
  if (!m) return { kind: 'malformed', reason: 'does not match the pattern' };
  const code = m.groups?.code?.replace(/^ +| +$/g, '') ?? '';
  const rawTime = m.groups?.time ?? '';
  const bad = codeProblem(code) ?? (ASCII.test(code) ? undefined : 'biometric code is not ASCII (line noise?)');
  if (bad) return { kind: 'malformed', reason: bad };
  const logTime = format.parse(rawTime);
  if (logTime === null)
    return { kind: 'malformed', reason: `time "${rawTime.slice(0, 40)}" does not fit ${format.source}` };
  return { kind: 'punch', code, logTime };
}

function parseCardLine(line: string, clock: Clock, timezone: string | undefined): ParsedLine {
  const text = clean(line);
  if (typeof text !== 'string') return text;
  if (!CARD_CHARS.test(text)) return { kind: 'malformed', reason: 'not a card number (1-32 letters or digits)' };
  return { kind: 'punch', code: text, logTime: wallClockAt(clock.now(), timezone) };
}
