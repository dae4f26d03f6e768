/**
 * Text that came from outside (a terminal, a file, the HRMS) shown on a terminal or in a log
 * sample: control characters and invisible formatting characters are written as visible escapes,
 * so that no ESC sequence recolours or clears the admin's screen, no CR or line separator forges
 * a line, and no bidirectional override makes `1001` read as another code. Letters of any script
 * stay as they are.
 */

/**
 * C0, DEL and C1 controls, format characters (bidi controls, zero-width, BOM, tags), line and
 * paragraph separators, lone surrogates, whatever Unicode says is ignored when shown (variation
 * selectors, Hangul fillers: Default_Ignorable_Code_Point) and noncharacters.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;

function escapeOne(c: string): string {
  const n = c.codePointAt(0)!;
  if (n < 0x100) return `\\x${n.toString(16).padStart(2, '0')}`;
  return n <= 0xffff ? `\\u${n.toString(16).padStart(4, '0')}` : `\\u{${n.toString(16)}}`;
}

/**
 * Combining marks that stack on one letter (nonspacing and enclosing marks) kept as they are: a
 * letter of any script carries at most a few (Vietnamese two, Thai two, Hebrew with its points and
 * a cantillation mark four). More is no writing but a tower of marks ("Zalgo" text) that a browser
 * and a terminal draw above and below the line, over the lines around it: a device's or an HRMS's
 * text could cover the status page's figures next to it (found by an adversarial trial).
 */
const MAX_STACKED_MARKS = 4;
const MARK_TOWER = new RegExp(`(?<=[\\p{Mn}\\p{Me}]{${MAX_STACKED_MARKS}})[\\p{Mn}\\p{Me}]`, 'gu');

/**
 * `text` with every control or invisible formatting character written as `\xNN`, `\uNNNN` or
 * `\u{NNNNN}`, and so is every combining mark past the MAX_STACKED_MARKS-th in a row.
 */
export function escapeControls(text: string): string {
  return text.replace(HIDDEN, escapeOne).replace(MARK_TOWER, escapeOne);
}

/**
 * `text` with the same characters as escapeControls written as JSON's `\uXXXX` escapes (a pair
 * of them beyond the BMP): the form of outside text kept in the journal (an HRMS's message), which
 * `punches export` writes as it is, and which a JSON reader reads back.
 */
export function escapeControlsAsJson(text: string): string {
  return text.replace(HIDDEN, jsonEscape).replace(MARK_TOWER, jsonEscape);
}

/** A sample of outside text for a log line: escaped (see escapeControls), at most `max` characters shown. */
export function printable(text: string, max = 80): string {
  const shown = escapeControls(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${shown}... (${text.length} chars)` : shown;
}

/**
 * A name or code from a terminal or the HRMS in double quotes, for a line of a command's output:
 * escaped and bounded as printable does (JSON.stringify, the quotes it would give, escapes C0
 * controls only: a bidi override, a C1 CSI or a line separator would reach the screen raw).
 */
export function quoted(text: string, max = 64): string {
  return `"${printable(text, max)}"`;
}

/** What escapeControls writes out, less the line breaks and tabs JSON.stringify itself lays out with. */
const HIDDEN_IN_JSON =
  /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;

/** `\uXXXX` (a pair of them beyond the BMP): JSON's own escape, which every parser reads back. */
const jsonEscape = (c: string) =>
  [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON for a person's screen or a log as much as for a program: JSON.stringify escapes C0 controls
 * only, and writes C1 controls (U+0085, U+009B: a CSI to some terminals), DEL, bidirectional
 * overrides and invisible characters of a device's or an HRMS's text raw. Here they are JSON's
 * `\uXXXX` escapes: a parser reads back the same value, a screen shows the escape.
 */
export function safeJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? 'null').replace(HIDDEN_IN_JSON, jsonEscape);
}

/** One log line (or any JSON text) with every raw control or invisible character as JSON's escape. */
export function safeJsonText(json: string): string {
  return json.replace(HIDDEN_IN_JSON, jsonEscape);
}
