/**
 * The DOS end-of-file mark: Ctrl-Z (0x1A) after a file's last line, which DOS-era tools and some
 * terminals' USB export routines still write, and which means "the file ends here". Text after it
 * that is only NULs (a stick's padding), CRs and LFs is part of that end. Read as text, the mark
 * was one bad line and the import of a good export ended with exit 65 (found by a serial/USB trial).
 * A Ctrl-Z with anything else after it is ordinary text, reported where it stands.
 */

const EOF_MARK = '\x1a';
/** What may follow the mark and still be the end of the file. */
// eslint-disable-next-line no-control-regex -- NUL padding is what it matches
const END_TAIL = /^[\x00\r\n]*$/;
/** The held tail is given back as text past this (a mark in the middle of a long run of NULs). */
const MAX_HELD = 1 << 20;

/** Holds back a Ctrl-Z and what follows it until the text shows whether it is the file's end. */
export class DosEofFilter {
  private held = '';

  /** The text that is surely not the end-of-file mark; the rest is held for the next push or `end`. */
  push(text: string): string {
    const all = this.held + text;
    this.held = '';
    let at = all.indexOf(EOF_MARK);
    while (at >= 0) {
      const tail = all.slice(at + 1);
      if (END_TAIL.test(tail) && all.length - at <= MAX_HELD) {
        this.held = all.slice(at);
        return all.slice(0, at);
      }
      at = all.indexOf(EOF_MARK, at + 1);
    }
    return all;
  }

  /** The input ended: a held mark was the end of the file (dropped), so nothing is left. */
  end(): string {
    this.held = '';
    return '';
  }
}

/** A whole text without its trailing DOS end-of-file mark (and the NULs and line ends after it). */
export function withoutDosEof(text: string): string {
  const f = new DosEofFilter();
  return f.push(text) + f.end();
}
