import type { SerialTerminalConfig } from '../../config/terminals.js';
import { codeProblem, wallClockAt } from '../../punch.js';
import type { Clock } from '../../util/clock.js';
import { compileTimeFormat, type TimeFormat } from './time-format.js';
import { CHECK_THE_CLOCK } from '../../util/impossible-date.js';
import { CARD_CODE_EXPRESSION, cardCode, trackTwoDigits } from './card-code.js';

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
/**
 * What a `format: card` terminal with no `pattern` reads: a card number alone, or after one of the
 * labels readers and converters print before it, then `:`, `=` or `#` (blanks around it allowed),
 * or only blanks: `W26:0012345678`, `EM4100: 0A00123456`, `Card: 12345`, `ID=12345`,
 * `UID: 04A1B2C3`, `Tag = 1E256`, `CARD 0415AB3C7D` (a published door-controller board prints its
 * cards so; read only after a colon, every card of it was a malformed line, lost).
 * Only these labels: a line such as `Error: 3`, `Error 3` or `Ready=1` is never a card 3 or 1, and a
 * label with more text after the card (`Card 3 Invalid`) is no card; any other layout (several
 * numbers on a line, another label) is read with a `pattern` naming the `code`.
 */
export const DEFAULT_CARD_PATTERN =
  '^(?:(?:card(?: ?(?:no\\.?|number|id|uid))?|id|uid|tag|rfid|badge|em ?4100|em|w ?26|w ?34|wiegand ?(?:26|34)?)(?:\\s*[:=#]\\s*|\\s+))?' +
  `(?<code>${CARD_CODE_EXPRESSION})$`;
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

/**
 * Compiles a `pattern` and checks that it has the named groups `code` and `time` (`format: regex`),
 * or `code` alone (`format: card`: the time is the box's clock).
 */
export function compileLinePattern(pattern: string, needs: readonly string[] = ['code', 'time']): CompiledPattern {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (e) {
    return { problems: [`is not a valid regular expression (${(e as Error).message})`] };
  }
  // An empty alternative makes the pattern match '', which lists every named group.
  const groups = Object.keys(new RegExp(`(?:${pattern})|`).exec('')?.groups ?? {});
  const problems = needs
    .filter((g) => !groups.includes(g))
    .map((g) => `needs a named group "${g}", written (?<${g}>...)`);
  return problems.length > 0 ? { problems } : { regex, problems };
}

export function createLineParser(cfg: SerialTerminalConfig, clock: Clock): LineParser {
  if (cfg.format === 'card') {
    const custom = cfg.pattern !== undefined;
    const card = compileLinePattern(cfg.pattern ?? DEFAULT_CARD_PATTERN, ['code']);
    if (!card.regex) throw new Error(`terminal ${cfg.name}: ${card.problems.join('; ')}`);
    // The labels of the default are matched in any letter case; a site's own pattern as written.
    const regex = custom ? card.regex : new RegExp(card.regex.source, 'i');
    return (line) => parseCardLine(line, regex, custom, clock, cfg.timezone);
  }
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

const BREAK_READ = 'NUL bytes only: a break on the line (a reader powering up, a cable plugged in or loose) reads so';

function clean(line: string): ParsedLine | string {
  const text = line.replace(EDGE_JUNK, '');
  if (text !== '') return text;
  if (line.trim() === '') return { kind: 'blank' };
  // A break reads as a NUL byte: the serialport binding sets no IGNBRK, BRKINT or PARMRK (termios(3)).
  if (/^\0+$/.test(line.replace(/[\r\n]/g, ''))) return { kind: 'malformed', reason: BREAK_READ };
  return { kind: 'malformed', reason: 'control characters only' };
}

function parseRegexLine(line: string, regex: RegExp, format: TimeFormat): ParsedLine {
  const text = clean(line);
  if (typeof text !== 'string') return text;
  const m = regex.exec(text);
  if (!m) return { kind: 'malformed', reason: regexMismatch(text, regex, format) };
  const code = m.groups?.code?.replace(/^ +| +$/g, '') ?? '';
  const rawTime = m.groups?.time ?? '';
  const bad = codeProblem(code) ?? (ASCII.test(code) ? undefined : 'biometric code is not ASCII (line noise?)');
  if (bad) return { kind: 'malformed', reason: bad };
  const logTime = format.parse(rawTime);
  if (logTime === null) {
    const impossible = format.impossible(rawTime);
    return {
      kind: 'malformed',
      reason: impossible
        ? `impossible date "${rawTime.slice(0, 40)}": ${impossible}: ${CHECK_THE_CLOCK}`
        : `time "${rawTime.slice(0, 40)}" does not fit ${format.source}`,
    };
  }
  return { kind: 'punch', code, logTime };
}

/**
 * Why a clock line does not match: its time impossible (a pattern whose time group checks its
 * digits, e.g. `(?<time>[0-2]\d:[0-5]\d)`, turns "24:00" into a mismatch), or the pattern.
 */
function regexMismatch(text: string, regex: RegExp, format: TimeFormat): string {
  // The time the format reads, wherever it stands in the line.
  const found = new RegExp(format.expression).exec(text);
  const impossible = found ? format.impossible(found[0]) : undefined;
  return found && impossible
    ? `impossible date "${found[0].slice(0, 40)}": ${impossible}: ${CHECK_THE_CLOCK}`
    : 'does not match the pattern';
}

const NOT_A_CARD =
  'not a card number (1-32 letters or digits, alone or after a label such as "Card:", "ID=", "W26:" or "CARD "; other layouts need a pattern)';

function parseCardLine(
  line: string,
  regex: RegExp,
  custom: boolean,
  clock: Clock,
  timezone: string | undefined,
): ParsedLine {
  const text = clean(line);
  if (typeof text !== 'string') return text;
  // A mag-stripe badge's track 2 (`;0012345678?`): its digits, as a reader without sentinels sends them.
  const badge = custom ? null : trackTwoDigits(text);
  if (badge !== null) return { kind: 'punch', code: badge, logTime: wallClockAt(clock.now(), timezone) };
  const m = regex.exec(text);
  // Never the line itself as a card: a label stays out of the code (the line goes to the log).
  if (!m)
    return {
      kind: 'malformed',
      reason: custom ? 'does not match the pattern' : NOT_A_CARD,
    };
  const code = cardCode(m.groups?.code?.trim() ?? '');
  if (code === null)
    return {
      kind: 'malformed',
      reason: custom
        ? "the pattern's code is not a card number (1-32 letters or digits, digits in groups of three, or facility,card)"
        : NOT_A_CARD,
    };
  return { kind: 'punch', code, logTime: wallClockAt(clock.now(), timezone) };
}

/** A card an RDM6300-type frame carried (checked by its checksum): a punch at the box's clock. */
export function cardPunch(card: string, clock: Clock, timezone: string | undefined): ParsedLine {
  return { kind: 'punch', code: card, logTime: wallClockAt(clock.now(), timezone) };
}
