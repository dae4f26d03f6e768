/**
 * Reads a Python settings file made of assignments of literals (`NAME = value`): strings (quotes
 * of either kind, triple quotes, r/b/u prefixes, adjacent strings joined), numbers, None, True,
 * False, lists, tuples, dicts, comments, brackets across lines. Nothing is run. A statement that
 * is anything else (an import, a call, an expression) is kept as `unreadable` with its line, for
 * the caller to report; a broken literal (an unterminated string or bracket) is a syntax error.
 */

export type PyValue = string | number | boolean | null | PyValue[] | PyDict;
export interface PyDict {
  readonly kind: 'dict';
  readonly entries: ReadonlyArray<{ key: PyValue; value: PyValue; line: number }>;
}

export interface PyAssignment {
  name: string;
  value: PyValue;
  line: number;
}

export interface PyFile {
  assignments: PyAssignment[];
  /** Statements that are not `NAME = literal`: their first line and first words. */
  unreadable: Array<{ line: number; text: string; name?: string }>;
}

export class PySyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'PySyntaxError';
  }
}

type Tok =
  | { t: 'name'; v: string; line: number }
  | { t: 'num'; v: number; line: number }
  | { t: 'str'; v: string; line: number }
  | { t: 'op'; v: string; line: number }
  | { t: 'nl'; line: number }
  | { t: 'other'; v: string; line: number };

/** Splits the text into tokens; newlines inside brackets are not statement ends. */
function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let line = 1;
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      if (depth === 0) out.push({ t: 'nl', line });
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '\\' && (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n'))) {
      i += text[i + 1] === '\n' ? 2 : 3;
      line++;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    const prefix = /^([rRbBuUfF]{0,2})(['"])/.exec(text.slice(i, i + 4));
    if (prefix && (prefix[1] === '' || /^[a-zA-Z]/.test(c))) {
      const flags = prefix[1]!.toLowerCase();
      const start = line;
      i += prefix[1]!.length;
      const q = text[i]!;
      const triple = text.startsWith(q.repeat(3), i);
      const close = triple ? q.repeat(3) : q;
      i += close.length;
      let s = '';
      for (;;) {
        if (i >= n) throw new PySyntaxError('unterminated string', start);
        const ch = text[i]!;
        if (text.startsWith(close, i)) {
          i += close.length;
          break;
        }
        if (ch === '\n') {
          if (!triple) throw new PySyntaxError('unterminated string', start);
          line++;
        }
        if (ch === '\\' && !flags.includes('r')) {
          const [val, len, nl] = escape(text, i + 1);
          s += val;
          i += 1 + len;
          line += nl;
          continue;
        }
        if (ch === '\\' && flags.includes('r') && i + 1 < n) {
          // A raw string still cannot end on an escaped quote.
          s += ch + text[i + 1]!;
          if (text[i + 1] === '\n') line++;
          i += 2;
          continue;
        }
        s += ch;
        i++;
      }
      if (flags.includes('f')) out.push({ t: 'other', v: 'f-string', line: start });
      else out.push({ t: 'str', v: s, line: start });
      continue;
    }
    const num = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i, i + 64),
    );
    if (num && num[0] !== '' && /[\d.]/.test(c)) {
      const raw = num[0].replace(/_/g, '');
      const v = /^0[xob]/i.test(raw) ? Number(raw) : Number(raw);
      if (Number.isNaN(v)) throw new PySyntaxError(`not a number: ${raw}`, line);
      out.push({ t: 'num', v, line });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256));
    if (name) {
      out.push({ t: 'name', v: name[0], line });
      i += name[0].length;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    out.push({ t: 'op', v: c, line });
    i++;
  }
  out.push({ t: 'nl', line });
  return out;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

/** One escape after a backslash at `at`: its value, the characters it took, the newlines in it. */
function escape(text: string, at: number): [string, number, number] {
  const e = text[at];
  if (e === undefined) return ['\\', 0, 0];
  if (e === '\n') return ['', 1, 1];
  if (e in SIMPLE_ESCAPES) return [SIMPLE_ESCAPES[e]!, 1, 0];
  const hex = (len: number) => {
    const h = text.slice(at + 1, at + 1 + len);
    return /^[0-9a-fA-F]+$/.test(h) && h.length === len ? String.fromCodePoint(parseInt(h, 16)) : undefined;
  };
  if (e === 'x') return [hex(2) ?? '\\x', hex(2) ? 3 : 1, 0];
  if (e === 'u') return [hex(4) ?? '\\u', hex(4) ? 5 : 1, 0];
  if (e === 'U') return [hex(8) ?? '\\U', hex(8) ? 9 : 1, 0];
  return ['\\' + e, 1, 0];
}

class Parser {
  private p = 0;
  constructor(private readonly toks: Tok[]) {}

  file(): PyFile {
    const out: PyFile = { assignments: [], unreadable: [] };
    while (this.p < this.toks.length) {
      const start = this.p;
      const first = this.toks[start]!;
      if (first.t === 'nl') {
        this.p++;
        continue;
      }
      const end = this.statementEnd(start);
      const opAt = (i: number, v: string) => {
        const t = this.toks[i];
        return t?.t === 'op' && t.v === v;
      };
      if (first.t === 'name' && opAt(start + 1, '=') && !opAt(start + 2, '=')) {
        this.p = start + 2;
        try {
          const value = this.value(end);
          if (this.p !== end) throw new NotLiteral();
          out.assignments.push({ name: (first as { v: string }).v, value, line: first.line });
        } catch (e) {
          if (!(e instanceof NotLiteral)) throw e;
          out.unreadable.push({ line: first.line, text: this.describe(start, end), name: (first as { v: string }).v });
        }
      } else out.unreadable.push({ line: first.line, text: this.describe(start, end) });
      this.p = end + 1;
    }
    return out;
  }

  private statementEnd(from: number): number {
    let i = from;
    while (this.toks[i]!.t !== 'nl') i++;
    return i;
  }

  private describe(start: number, end: number): string {
    return this.toks
      .slice(start, Math.min(end, start + 6))
      .map((t) => ('v' in t ? (t.t === 'str' ? '"..."' : String(t.v)) : ''))
      .join(' ');
  }

  private peek(): Tok {
    return this.toks[this.p]!;
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }

  private value(end: number): PyValue {
    if (this.p >= end) throw new NotLiteral();
    const t = this.peek();
    if (t.t === 'str') {
      let s = '';
      while (this.p < end && this.peek().t === 'str') s += (this.toks[this.p++] as { v: string }).v;
      return s;
    }
    if (t.t === 'num') {
      this.p++;
      return t.v;
    }
    if (t.t === 'op' && (t.v === '-' || t.v === '+')) {
      this.p++;
      const v = this.value(end);
      if (typeof v !== 'number') throw new NotLiteral();
      return t.v === '-' ? -v : v;
    }
    if (t.t === 'name') {
      this.p++;
      if (t.v === 'None') return null;
      if (t.v === 'True') return true;
      if (t.v === 'False') return false;
      throw new NotLiteral();
    }
    if (t.t === 'op' && (t.v === '[' || t.v === '(')) {
      const close = t.v === '[' ? ']' : ')';
      this.p++;
      const items: PyValue[] = [];
      while (!this.isOp(close)) {
        items.push(this.value(end));
        if (this.isOp(',')) this.p++;
        else if (!this.isOp(close)) throw new NotLiteral();
      }
      this.p++;
      return items;
    }
    if (t.t === 'op' && t.v === '{') {
      this.p++;
      const entries: Array<{ key: PyValue; value: PyValue; line: number }> = [];
      while (!this.isOp('}')) {
        const line = this.peek().line;
        const key = this.value(end);
        if (!this.isOp(':')) throw new NotLiteral();
        this.p++;
        entries.push({ key, value: this.value(end), line });
        if (this.isOp(',')) this.p++;
        else if (!this.isOp('}')) throw new NotLiteral();
      }
      this.p++;
      return { kind: 'dict', entries };
    }
    throw new NotLiteral();
  }
}

class NotLiteral extends Error {}

/** The assignments of a Python settings file; throws PySyntaxError on a broken literal. */
export function readPythonSettings(text: string): PyFile {
  const toks = tokenize(text.replace(/^\uFEFF/, ''));
  checkBrackets(toks);
  return new Parser(toks).file();
}

/** Brackets must pair up: an unclosed one would swallow the rest of the file. */
function checkBrackets(toks: Tok[]): void {
  const stack: Array<{ v: string; line: number }> = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (const t of toks) {
    if (t.t !== 'op') continue;
    if ('([{'.includes(t.v)) stack.push({ v: t.v, line: t.line });
    else if (t.v in pairs) {
      const open = stack.pop();
      if (!open || open.v !== pairs[t.v]) throw new PySyntaxError(`"${t.v}" closes nothing`, t.line);
    }
  }
  const open = stack.pop();
  if (open) throw new PySyntaxError(`"${open.v}" is never closed`, open.line);
}

export const isDict = (v: PyValue | undefined): v is PyDict =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dict';

/** A dict's value by string key. */
export function dictGet(d: PyDict, key: string): { value: PyValue; line: number } | undefined {
  const e = d.entries.find((x) => x.key === key);
  return e ? { value: e.value, line: e.line } : undefined;
}

/** A value as Python's repr would show it, short (for messages). */
export function pyRepr(v: PyValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v.length > 40 ? v.slice(0, 40) + '...' : v}'`;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.slice(0, 4).map(pyRepr).join(', ')}${v.length > 4 ? ', ...' : ''}]`;
  return `{${v.entries
    .slice(0, 3)
    .map((e) => `${pyRepr(e.key)}: ${pyRepr(e.value)}`)
    .join(', ')}${v.entries.length > 3 ? ', ...' : ''}}`;
}
