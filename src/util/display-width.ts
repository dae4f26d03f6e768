/**
 * How many columns a text takes on a terminal, so that tables line up whatever names they hold
 * (found by a trial: a CJK or emoji name pushed every later column of its row out of line).
 * Counted per grapheme (what the eye sees as one character): 2 when it holds an East Asian Wide or
 * Fullwidth character or an emoji shown as a picture, 0 when it is only combining marks or
 * zero-width joiners/selectors, else 1. The wide ranges are Unicode's EastAsianWidth W and F blocks.
 */
const WIDE =
  /[\u1100-\u115f\u231a\u231b\u2329\u232a\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
// Variation selectors on their own are what this class is for, not part of a combined character.
// eslint-disable-next-line no-misleading-character-class
const ZERO = /^[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufe00-\ufe0f\u{e0100}-\u{e01ef}]*$/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function displayWidth(s: string): number {
  // Most cells are plain ASCII: counted without segmenting.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let w = 0;
  for (const { segment } of graphemes.segment(s)) w += WIDE.test(segment) ? 2 : ZERO.test(segment) ? 0 : 1;
  return w;
}

/** `s` padded with spaces to `width` columns, on the right (`end`) or the left (`start`). */
export function padWidth(s: string, width: number, side: 'end' | 'start' = 'end'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return side === 'end' ? s + fill : fill + s;
}

/** At most `width` columns of `s`, whole graphemes only, ending in `...` when cut. */
export function cutToWidth(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const { segment } of graphemes.segment(s)) {
    const g = displayWidth(segment);
    if (w + g > width - 3) break;
    out += segment;
    w += g;
  }
  return `${out}...`;
}
