import type { YAMLError } from 'yaml';

/**
 * Where the admin must look for a YAML syntax error, which is not always where the parser stopped:
 * - a key indented deeper than its block under a key that already has a value on its line
 *   (`host: 10.0.0.5` then `    port: 4370` one level too deep) is reported by the parser at the
 *   `host` line, since it reads the two lines as one key; the line to edit is the deeper one;
 * - a quote left open is reported where the parser gave up looking for its end (often past the
 *   last line of the file); the line to edit is the one that opened it;
 * - a key at another column after a comment line may be reported at the blank or comment line
 *   before it; the line to edit is the next one with text.
 * `parser` is the line the parser named, when it is another line, so the message can say both.
 */
export interface SlipLine {
  line: number;
  parser?: number;
  /** The line with a value on it that the deeper line was read as part of. */
  under?: { line: number; key: string };
  /** The quote left open: `"` or `'`. */
  quote?: string;
}

export function slipLine(e: YAMLError, lines: readonly string[]): SlipLine | undefined {
  const line = e.linePos?.[0]?.line;
  if (line === undefined) return undefined;
  // "A block sequence may not be used as an implicit map key": the "- " on this line is the slip
  // (left of the list items above it, or starting a list among an item's keys), not the deeper
  // key under it (a terminal added one space left of the others was said as "indent kind like name").
  const listMark = /^A block sequence/.test(e.message);
  if ((e.code === 'BLOCK_AS_IMPLICIT_KEY' && !listMark) || e.code === 'MULTILINE_IMPLICIT_KEY') {
    const deeper = deeperLineUnder(lines, line);
    if (deeper) return { line: deeper.line, parser: line, under: { line, key: deeper.key } };
  }
  const quote = /^Missing closing (["'])quote/.exec(e.message)?.[1];
  if (e.code === 'MISSING_CHAR' && quote) {
    const opened = lineOfOpenQuote(lines, line, quote);
    if (opened !== undefined && opened !== line) return { line: opened, parser: line, quote };
    // Opened on the line the parser named, or nowhere this search can tell: that line.
    return opened === line ? { line, quote } : { line };
  }
  // A blank or comment-only line has nothing to edit (the parser may stop on one after a comment
  // at the column of the block): the slip is the next line with text on it.
  if (!hasText(lines[line - 1] ?? '')) {
    for (let n = line + 1; n <= lines.length; n++) if (hasText(lines[n - 1]!)) return { line: n, parser: line };
  }
  return { line };
}

function hasText(line: string): boolean {
  return !/^\s*(#.*)?$/.test(line);
}

/** `host: 10.0.0.5` (a key with its value on its line) at 1-based `line`, and the next line of text indented deeper than `host`. */
function deeperLineUnder(lines: readonly string[], line: number): { line: number; key: string } | undefined {
  const m = /^((?:\s*- )*\s*)([^\s#:][^:#]*?):[ \t]+([^\s#].*)$/.exec(lines[line - 1] ?? '');
  if (!m) return undefined;
  const keyColumn = m[1]!.length;
  for (let n = line + 1; n <= lines.length; n++) {
    const text = lines[n - 1]!;
    if (!hasText(text)) continue;
    const indent = /^[ \t]*/.exec(text)![0].length;
    return indent > keyColumn ? { line: n, key: m[2]!.trim() } : undefined;
  }
  return undefined;
}

/**
 * The last line at or before `line` (1-based) that opens a `quote` it does not close. A quote opens
 * a value only where a value starts (line start, after "- ", ": ", "[", "{" or ","); inside it `''`
 * (single) or `\"` (double) is a quote written out, and `#` after a space outside quotes is a comment.
 */
function lineOfOpenQuote(lines: readonly string[], line: number, quote: string): number | undefined {
  for (let n = Math.min(line, lines.length); n >= 1; n--) if (leavesOpen(lines[n - 1]!, quote)) return n;
  return undefined;
}

function leavesOpen(text: string, quote: string): boolean {
  let open: string | undefined;
  let valueStarts = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (open) {
      if (open === '"' && c === '\\') i++;
      else if (open === "'" && c === "'" && text[i + 1] === "'") i++;
      else if (c === open) open = undefined;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) break;
    if ((c === '"' || c === "'") && valueStarts) {
      open = c;
      continue;
    }
    if (/\s/.test(c)) continue;
    valueStarts =
      '[{,'.includes(c) ||
      (c === '-' && /\s|$/.test(text[i + 1] ?? '')) ||
      (c === ':' && /\s|$/.test(text[i + 1] ?? ''));
  }
  return open === quote;
}
