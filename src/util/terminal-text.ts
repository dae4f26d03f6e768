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

/** `text` with every control or invisible formatting character written as `\xNN`, `\uNNNN` or `\u{NNNNN}`. */
export function escapeControls(text: string): string {
  return text.replace(HIDDEN, escapeOne);
}

/** A sample of outside text for a log line: escaped (see escapeControls), at most `max` characters shown. */
export function printable(text: string, max = 80): string {
  const shown = escapeControls(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${shown}... (${text.length} chars)` : shown;
}
