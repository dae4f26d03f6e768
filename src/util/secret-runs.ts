/**
 * Finds a secret quoted in disguise: not the whole value (secrets.ts replaces that and its usual
 * encodings) but any run of RUN or more of its characters, however the text carries it:
 *
 * - as it is, in any letter case, cut short (the token minus its last character), or reversed;
 * - spelled out with separators (`s e c r e t`, `s-e-c-r-e-t`) or interleaved with other
 *   characters (`sXeXcXrXeXt`);
 * - percent-encoded, with `\xNN` / `\uNNNN` escapes or `&#NN;` entities, in hexadecimal (with or
 *   without separators), in base64 or base64url, in base32 (RFC 4648's alphabet or its "hex"
 *   one, any letter case, with or without padding) at any alignment;
 * - in compatibility forms: fullwidth or mathematical letters and digits (NFKC folds them back);
 * - rot13 or rot47 (the letter shifts an HRMS or a framework may "hide" a value with);
 * - and any of these reversed.
 *
 * What is found is a span of the original text, which the caller replaces. Ordinary words meet a
 * random token's runs by chance about as often as a lottery is won; a spelled-out match counts only
 * where the text really is spelled out (runs of one or two characters), so that the words "HRMS
 * token" never match a token that happens to begin with them.
 */

/** Characters of a secret that make a quoted run: long enough never to occur by chance. */
export const RUN = 8;

/** A text as read in one way, each of its characters pointing back at the original characters it came from. */
interface View {
  text: string;
  start: Int32Array;
  end: Int32Array;
  /** Looked at for spelled-out and interleaved runs too (the text itself, and its unescaped form). */
  spelled?: boolean;
}

/** The runs of one or more secrets, ready to be looked for in any number of texts. */
export class SecretRuns {
  /** Lower-cased runs of each secret as written, forwards and reversed. */
  private readonly raw: RunSet;
  /** The same of each secret's letters and digits only (separators taken out). */
  private readonly alnum: RunSet;

  constructor(values: Iterable<string>) {
    const kept = [...values].map((v) => asciiLower(v.trim())).filter((v) => v.length >= 6);
    // Short secrets are looked for whole (as long as the shortest one, at most RUN).
    const rawLength = Math.min(RUN, ...kept.map((v) => v.length));
    const norm = kept.map(alnumOf).filter((v) => v.length >= 6);
    const alnumLength = Math.min(RUN, ...norm.map((v) => v.length));
    const raw = new Set<string>();
    const alnum = new Set<string>();
    for (const v of kept) addRuns(raw, v, rawLength);
    // Spelled out or interleaved, a run of digits alone is too like the counts and times around it.
    for (const v of norm) addRuns(alnum, v, alnumLength, (run) => !/^\d+$/.test(run));
    this.raw = runSet(raw, rawLength);
    this.alnum = runSet(alnum, alnumLength);
  }

  get empty(): boolean {
    return this.raw.runs.size === 0;
  }

  /** Spans [start, end) of `text` that quote a run of a secret, merged and in order. */
  find(text: string): Array<[number, number]> {
    if (this.empty || text.length < Math.min(this.raw.length, this.alnum.length)) return [];
    const spans: Array<[number, number]> = [];
    const [plain, ...decoded] = views(text);
    this.look(plain!, spans, true);
    // Decoded bytes are looked at as they are: a spelled-out token inside hex is not a disguise anyone uses.
    for (const view of decoded) this.look(view, spans, view.spelled === true);
    return merge(spans);
  }

  /** `text` with every quoted run replaced by `marker`. */
  redact(text: string, marker: string): string {
    const spans = this.find(text);
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [s, e] of spans) {
      out += text.slice(at, s) + marker;
      at = e;
    }
    return out + text.slice(at);
  }

  private look(view: View, spans: Array<[number, number]>, spelled: boolean): void {
    const lower = asciiLower(view.text);
    matchRuns(lower, this.raw, (i, j) => spans.push([view.start[i]!, view.end[j - 1]!]));
    if (!spelled) return;
    // Interleaved: every second or third character, as written or of the letters and digits alone.
    for (const step of [2, 3])
      matchStrided(lower, this.raw, step, (i, last) => spans.push([view.start[i]!, view.end[last]!]));
    const letters = project(view, lower);
    // Spelled out: the letters of the match stand in runs of one or two between separators.
    matchRuns(letters.text, this.alnum, (i, j) => {
      if (words(letters, i, j) * 2 >= j - i) spans.push([letters.start[i]!, letters.end[j - 1]!]);
    });
    for (const step of [2, 3])
      matchStrided(letters.text, this.alnum, step, (i, last) => spans.push([letters.start[i]!, letters.end[last]!]));
  }
}

function addRuns(set: Set<string>, v: string, n: number, keep: (run: string) => boolean = () => true): void {
  const rev = [...v].reverse().join('');
  for (const s of [v, rev])
    for (let i = 0; i + n <= s.length; i++) {
      const run = s.slice(i, i + n);
      if (keep(run)) set.add(run);
    }
}

/** Runs of one length, with the first two characters of each as one number: most positions of a text are ruled out by them alone. */
interface RunSet {
  runs: Set<string>;
  firsts: Set<number>;
  length: number;
}

const pair = (s: string, i: number) => (s.charCodeAt(i) << 16) | s.charCodeAt(i + 1);

function runSet(runs: Set<string>, length: number): RunSet {
  return { runs, length, firsts: new Set([...runs].map((r) => pair(r, 0))) };
}

/** Runs whose characters stand `step` apart in `text` (hit gets the first and the last position). */
function matchStrided(text: string, set: RunSet, step: number, hit: (first: number, last: number) => void): void {
  const { runs, firsts, length: n } = set;
  if (runs.size === 0) return;
  const span = (n - 1) * step;
  for (let i = 0; i + span < text.length; i++) {
    if (!firsts.has((text.charCodeAt(i) << 16) | text.charCodeAt(i + step))) continue;
    let run = '';
    for (let k = 0; k < n; k++) run += text[i + k * step];
    if (runs.has(run)) hit(i, i + span);
  }
}

function matchRuns(text: string, set: RunSet, hit: (i: number, j: number) => void): void {
  const { runs, firsts, length: n } = set;
  if (runs.size === 0) return;
  for (let i = 0; i + n <= text.length; i++)
    if (firsts.has(pair(text, i)) && runs.has(text.slice(i, i + n))) hit(i, i + n);
}

/** A table of the 128 ASCII characters, each mapped by `f` (one character for one). */
function asciiTable(f: (c: number) => number): Uint16Array {
  return Uint16Array.from({ length: 128 }, (_, c) => f(c));
}

/**
 * `s` with each ASCII character replaced through `table`, others kept: one character for one, so
 * positions stay where they were. A table and a loop, not a regular expression with a function
 * per character: the status files, scrubbed each interval, are tens of kilobytes.
 */
function mapAscii(s: string, table: Uint16Array): string {
  const codes = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    codes[i] = c < 128 ? table[c]! : c;
  }
  let out = '';
  for (let i = 0; i < codes.length; i += 4096)
    out += String.fromCharCode.apply(null, codes.subarray(i, i + 4096) as unknown as number[]);
  return out;
}

const LOWER = asciiTable((c) => (c >= 65 && c <= 90 ? c + 32 : c));
/** Lower case for ASCII letters only: one character for one, so that positions stay where they were. */
const asciiLower = (s: string) => (/[A-Z]/.test(s) ? mapAscii(s, LOWER) : s);
const alnumOf = (s: string) => s.replace(/[^a-z0-9]/g, '');
const isAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a);

/** The letters and digits of a (lower-cased) view, each pointing at its original span. */
function project(view: View, lower: string): View & { gapBefore: Uint8Array } {
  const n = lower.length;
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  const gap = new Uint8Array(n);
  const kept: string[] = [];
  let sawGap = false;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (!isAlnum(lower.charCodeAt(i))) {
      sawGap = true;
      continue;
    }
    kept.push(lower[i]!);
    start[k] = view.start[i]!;
    end[k] = view.end[i]!;
    gap[k++] = sawGap ? 1 : 0;
    sawGap = false;
  }
  return { text: kept.join(''), start: start.subarray(0, k), end: end.subarray(0, k), gapBefore: gap.subarray(0, k) };
}

/** How many separate runs of letters make up letters[i, j). */
function words(letters: { gapBefore: Uint8Array }, i: number, j: number): number {
  let n = 1;
  for (let k = i + 1; k < j; k++) n += letters.gapBefore[k]!;
  return n;
}

function merge(spans: Array<[number, number]>): Array<[number, number]> {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [[...spans[0]!]];
  for (const [s, e] of spans.slice(1)) {
    const last = out[out.length - 1]!;
    if (s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

// ---- Ways of reading a text ----

function identity(text: string): View {
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) {
    start[i] = i;
    end[i] = i + 1;
  }
  return { text, start, end };
}

/** A view made of pieces, each a decoded string standing for the span [s, e) of the original. */
class ViewBuilder {
  private text = '';
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  add(chars: string, s: number, e: number): void {
    for (const c of chars) {
      this.text += c;
      this.start.push(s);
      this.end.push(e);
    }
  }
  build(): View {
    return { text: this.text, start: Int32Array.from(this.start), end: Int32Array.from(this.end) };
  }
}

const ESCAPE =
  /%([0-9a-f]{2})|\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\u\{([0-9a-f]{1,6})\}|&#x([0-9a-f]{1,6});|&#(\d{1,7});|\+/gi;

/** Percent-encoding, backslash escapes and character references decoded (only where there are some). */
function unescaped(text: string): View | undefined {
  ESCAPE.lastIndex = 0;
  if (!ESCAPE.test(text)) return undefined;
  ESCAPE.lastIndex = 0;
  const b = new ViewBuilder();
  let at = 0;
  for (let m = ESCAPE.exec(text); m; m = ESCAPE.exec(text)) {
    for (let i = at; i < m.index; i++) b.add(text[i]!, i, i + 1);
    const hex = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5];
    const code = m[0] === '+' ? 0x20 : hex !== undefined ? parseInt(hex, 16) : Number(m[6]);
    b.add(code <= 0x10ffff ? String.fromCodePoint(code) : '', m.index, m.index + m[0].length);
    at = m.index + m[0].length;
  }
  for (let i = at; i < text.length; i++) b.add(text[i]!, i, i + 1);
  return b.build();
}

/** Hex digits in runs long enough to hold a quoted run, with `0x`, `\x` or one separator between pairs. */
const HEX_RUN = /(?:(?:0x|\\x)?[0-9a-f]{2}[\s:.,-]?){8,}/gi;

/** Each long run of hexadecimal read as bytes, at both alignments. */
function hexDecoded(text: string): View[] {
  const out: View[] = [];
  HEX_RUN.lastIndex = 0;
  for (let m = HEX_RUN.exec(text); m; m = HEX_RUN.exec(text)) {
    const digits: number[] = [];
    const run = m[0];
    for (let i = 0; i < run.length; i++) {
      const c = run[i]!;
      if (/[0-9a-f]/i.test(c) && !(c.toLowerCase() === 'x' || (c === '0' && run[i + 1]?.toLowerCase() === 'x')))
        digits.push(m.index + i);
    }
    for (const offset of [0, 1]) {
      const b = new ViewBuilder();
      for (let k = offset; k + 1 < digits.length; k += 2) {
        const s = digits[k]!;
        const e = digits[k + 1]! + 1;
        b.add(String.fromCharCode(parseInt(text[digits[k]!]! + text[digits[k + 1]!]!, 16)), s, e);
      }
      out.push(b.build());
    }
  }
  return out;
}

/** base64 and base64url alphabets, runs long enough to hold a quoted run. */
const B64_RUN = /[A-Za-z0-9+/_-]{12,}/g;

/** Each long base64-looking run decoded, at each of the four alignments. */
function base64Decoded(text: string): View[] {
  const out: View[] = [];
  B64_RUN.lastIndex = 0;
  for (let m = B64_RUN.exec(text); m; m = B64_RUN.exec(text)) {
    const run = m[0].replace(/-/g, '+').replace(/_/g, '/');
    for (let offset = 0; offset < 4; offset++) {
      // A last group of two or three characters still holds one or two whole bytes.
      if (run.length - offset < 12) continue;
      const bytes = Buffer.from(run.slice(offset), 'base64');
      const b = new ViewBuilder();
      for (let k = 0; k < bytes.length; k++) {
        // Byte k comes from characters (k*8/6) to ((k+1)*8/6) of its group.
        const s = m.index + offset + Math.floor((k * 8) / 6);
        const e = m.index + offset + Math.ceil(((k + 1) * 8) / 6);
        b.add(String.fromCharCode(bytes[k]!), s, e);
      }
      out.push(b.build());
    }
  }
  return out;
}

/** base32 alphabets (RFC 4648 section 6 and its "extended hex" one, section 7), upper case. */
const B32_ALPHABETS: ReadonlyArray<{ chars: string; run: RegExp }> = [
  { chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', run: /[A-Za-z2-7]{13,}/g },
  { chars: '0123456789ABCDEFGHIJKLMNOPQRSTUV', run: /[0-9A-Va-v]{13,}/g },
];

/**
 * Each long base32-looking run decoded, at each of the eight alignments (eight characters carry
 * five bytes): thirteen characters hold the eight bytes of a run.
 */
function base32Decoded(text: string): View[] {
  const out: View[] = [];
  for (const { chars, run: re } of B32_ALPHABETS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const run = m[0].toUpperCase();
      for (let offset = 0; offset < 8; offset++) {
        if (run.length - offset < 13) continue;
        const b = new ViewBuilder();
        let bits = 0;
        let value = 0;
        let first = offset;
        for (let i = offset; i < run.length; i++) {
          value = ((value << 5) | chars.indexOf(run[i]!)) & 0xffff;
          bits += 5;
          if (bits >= 8) {
            bits -= 8;
            b.add(String.fromCharCode((value >> bits) & 0xff), m.index + first, m.index + i + 1);
            first = bits > 0 ? i : i + 1;
          }
        }
        out.push(b.build());
      }
    }
  }
  return out;
}

const ROT13 = asciiTable((c) => {
  const base = c >= 65 && c <= 90 ? 65 : c >= 97 && c <= 122 ? 97 : -1;
  return base < 0 ? c : base + ((c - base + 13) % 26);
});
const ROT47 = asciiTable((c) => (c >= 33 && c <= 126 ? 33 + ((c - 33 + 47) % 94) : c));
/** Letters moved 13 places (rot13): one character for one, so positions stay where they were. */
const rot13 = (s: string) => mapAscii(s, ROT13);
/** Printable ASCII moved 47 places (rot47, which shifts digits and punctuation too). */
const rot47 = (s: string) => mapAscii(s, ROT47);

/**
 * Compatibility forms folded, character by character (NFKC): a token echoed in fullwidth
 * (`ｔｏｋｅｎ`) or mathematical letters (`𝐭𝐨𝐤𝐞𝐧`) reads as the token to anyone (only where there are some).
 */
function compatibilityFolded(text: string): View | undefined {
  if (text.normalize('NFKC') === text) return undefined;
  const b = new ViewBuilder();
  let i = 0;
  for (const c of text) {
    b.add(c.normalize('NFKC'), i, i + c.length);
    i += c.length;
  }
  return b.build();
}

function views(text: string): View[] {
  const out = [identity(text)];
  const u = unescaped(text);
  if (u) out.push({ ...u, spelled: true });
  const k = compatibilityFolded(text);
  if (k) out.push({ ...k, spelled: true });
  const bases = out.slice();
  // One push per view, not push(...views): a large answer (an employee list of 200,000, every
  // number a hex run) gives more views than a call can take arguments (a stack overflow).
  for (const base of bases)
    for (const decoded of [hexDecoded(base.text), base64Decoded(base.text), base32Decoded(base.text)])
      for (const v of decoded) out.push(remap(v, base));
  // The letter shifts of the text as written and unescaped: same positions, other characters.
  for (const base of bases) out.push({ ...base, text: rot13(base.text) }, { ...base, text: rot47(base.text) });
  return out;
}

/** A view of a view, pointed at the original text. */
function remap(v: View, base: View): View {
  if (base.text.length === 0) return v;
  const start = v.start.map((s) => base.start[s]!);
  const end = v.end.map((e) => base.end[e - 1]!);
  return { text: v.text, start, end };
}
