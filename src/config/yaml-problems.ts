import type { YAMLError } from 'yaml';
import { slipLine, type SlipLine } from './yaml-slip-line.js';

/**
 * A config file that is not valid YAML, in the words of the person who wrote it: one line per
 * place (`file:line: expected ..., found ...`, with what to do), not the parser's terms. The
 * parser reports one slip several times (a tab before a key is also "a nested mapping in a compact
 * mapping" and "an implicit key on two lines"): the first report of a line stands for all of them.
 */
export function yamlProblems(errors: readonly YAMLError[], text: string, file: string): string[] {
  const lines = text.split(/\r?\n/);
  const out: string[] = [];
  const seen = new Set<number>();
  // One line indented wrong makes the parser stumble on every correct line of its block after it
  // (a new-user trial: one slip, six problems, five of them on lines that were right). The first
  // slip of the structure is said; the lines it drags along are named in it, not as problems.
  let slip: { at: number; line: number; after: number[] } | undefined;
  for (const e of errors) {
    // The line to edit, which for some slips is not the one where the parser stopped.
    const where = slipLine(e, lines);
    const line = where?.line;
    if (line !== undefined) {
      if (seen.has(line)) continue;
      seen.add(line);
    }
    if (line !== undefined && isStructural(e)) {
      // The same slip made again further down (a block copied with its wrong indentation, another
      // tab) is a problem of its own: named as dragged, it was left for a second and third run.
      if (slip && line > slip.line && !sameSlipAgain(e, lines[line - 1] ?? '', lines[slip.line - 1] ?? '')) {
        slip.after.push(line);
        continue;
      }
      slip ??= { at: out.length, line, after: [] };
    }
    out.push(`${file}${line ? `:${line}` : ''}: ${plainWords(e, text, lines, where)}`);
  }
  if (slip && slip.after.length > 0) out[slip.at] += `; ${dragged(slip.after)}`;
  return out;
}

/** Codes of a slip in the indentation or the list marks, which upsets the lines after it too. */
const STRUCTURE = new Set(['TAB_AS_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY', 'BAD_INDENT']);

function isStructural(e: YAMLError): boolean {
  return STRUCTURE.has(e.code) || (e.code === 'MISSING_CHAR' && /^Sequence item without - indicator/.test(e.message));
}

/**
 * Whether a later line shows, in its own text, the slip of the first one: a tab among the spaces
 * before its key, or a key indented in between, by as many spaces as the first slip. Correct lines
 * that the parser only stumbled on after a slip have neither.
 */
function sameSlipAgain(e: YAMLError, text: string, slipText: string): boolean {
  if (/^[ ]*\t/.test(text)) return true;
  const inBetween = e.code === 'MISSING_CHAR' && /^Sequence item without - indicator/.test(e.message);
  const indent = (t: string) => /^ */.exec(t)![0].length;
  return inBetween && indent(text) === indent(slipText);
}

/** The lines a slip upset after it, in words: `the parser also stumbled on lines 20, 21 and 25 ...`. */
function dragged(after: readonly number[]): string {
  const shown = after.slice(0, 8);
  const list =
    shown.length === 1
      ? `line ${shown[0]}`
      : `lines ${shown.slice(0, -1).join(', ')}${after.length > 8 ? ', ...' : ` and ${shown.at(-1)}`}`;
  return `the parser also stumbled on ${list} after it, most likely only because of this one: correct this line first, then run punchgate check again`;
}

const LIST_COLUMN =
  'expected this "- " to line up with the "- " of the list items above it, found it at another column (indent it like them)';

/**
 * Whether the "- " on this 1-based line stands left of the nearest list item above it: a new item
 * (a terminal added at the end) indented less than the others, which the parser reads as a list
 * used as a key. A "- " right of it starts a list inside that item.
 */
function leftOfListAbove(lines: readonly string[], line: number): boolean {
  const dash = /^( *)- /.exec(lines[line - 1] ?? '')?.[1]?.length;
  if (dash === undefined) return false;
  for (let n = line - 1; n >= 1; n--) {
    const above = /^( *)- /.exec(lines[n - 1]!)?.[1]?.length;
    if (above !== undefined) return dash < above;
  }
  return false;
}

/** The key on this 1-based line, quoted (`"port"`), or "this key" where the line holds none. */
function keyOn(lines: readonly string[], line: number | undefined): string {
  const key =
    line === undefined ? undefined : /^\s*(?:-\s+)?([^\s:#"'][^:#]*?)\s*:(?:\s|$)/.exec(lines[line - 1] ?? '')?.[1];
  return key ? `"${key}"` : 'this key';
}

const TAB =
  'expected spaces before the text, found a tab: YAML indents with spaces only (replace the tab with spaces, as many as the lines around it have)';

function plainWords(e: YAMLError, text: string, lines: readonly string[], where: SlipLine | undefined): string {
  const line = where?.line;
  const said = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  // A tab among the spaces before a key (`  \t  port: 4370`) reads as "another column": say the tab.
  if (line !== undefined && isStructural(e) && /^[ ]*\t/.test(lines[line - 1] ?? '')) return TAB;
  if (line !== undefined && where?.under) return deeperUnder(lines[line - 1] ?? '', where.under);
  if (where?.quote && where.parser !== undefined)
    return `expected the ${where.quote} quote opened on this line to be closed, found none (the parser read on to line ${where.parser} looking for its end): close it on this line`;
  switch (e.code) {
    case 'TAB_AS_INDENT':
      return TAB;
    case 'BLOCK_AS_IMPLICIT_KEY':
      // `    - kind: zk` among the keys of a list item: the "- " is the slip, on this very line.
      if (/^A block sequence/.test(said))
        return line !== undefined && leftOfListAbove(lines, line)
          ? LIST_COLUMN
          : 'expected a key of the list item above, found "- " starting a list inside it (a new list item starts with "- " at the column of the one above; otherwise remove the "- ")';
      // The next line is not deeper (that is said at the deeper line), so the value itself holds ": ".
      if (/^Nested mappings/.test(said))
        return 'expected one "key: value" here, found a second ": " in the value (put the value in quotes, e.g. key: "a: b")';
      return 'expected one "key: value" here, found more: the next line is indented deeper than this one, or a value holds ": " (line up the keys of one block at one column; put such a value in quotes)';
    case 'MULTILINE_IMPLICIT_KEY':
      return 'expected one "key: value" here, found more: the next line is indented deeper than this one, or a value holds ": " (line up the keys of one block at one column; put such a value in quotes)';
    case 'DUPLICATE_KEY': {
      const key = /^[^:\s]+/.exec(text.slice(e.pos[0]))?.[0] ?? 'a key';
      return `expected each key once in a block, found "${key}" a second time (keep one; if it starts another list item, put "- " before its first key)`;
    }
    case 'BAD_INDENT':
      if (/^Flow map/.test(said)) return 'expected the "{" opened above to be closed with "}" on its line, found none';
      if (/^Flow sequence/.test(said))
        return 'expected the "[" opened above to be closed with "]" on its line, found none';
      if (/^All sequence items/.test(said)) return LIST_COLUMN;
      // The key named, as the other slips name theirs: "this key" left the admin to find it on the line.
      return `expected ${keyOn(lines, line)} to line up with the keys above it, found it at another column (indent it like them; a new list item starts with "- ")`;
    case 'MISSING_CHAR':
      if (/^Sequence item without - indicator/.test(said))
        return 'expected this line to line up with the keys above it, or to start a new list item with "- ", found it indented in between';
      // Where it was opened is found by slipLine (the line said, with the parser's when they differ).
      if (/quote/i.test(said))
        return where?.quote
          ? `expected the ${where.quote} quote opened on this line to be closed, found none: close it on this line`
          : 'expected the quote to be closed, found none (close it on the line it opens)';
      return `${said} (check the indentation and quotes of this line and the one before)`;
    default:
      return `${said} (check the indentation and quotes of this line and the one before)`;
  }
}

/** A key indented deeper than the line above, whose value is already on that line (`host: 10.0.0.5`). */
function deeperUnder(text: string, under: { line: number; key: string }): string {
  const key = /^[\s-]*([^\s#:][^:#]*?):/.exec(text)?.[1]?.trim();
  const what = key ? `"${key}"` : 'this line';
  return `expected ${what} to line up with "${under.key}" on line ${under.line}, found it indented deeper, under "${under.key}", which already has its value on line ${under.line} (the parser stopped at line ${under.line}): indent ${what} like "${under.key}"`;
}
