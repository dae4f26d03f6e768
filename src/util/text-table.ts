import { displayWidth, padWidth } from './display-width.js';
import { escapeControls } from './terminal-text.js';

/**
 * A plain text table for a person at a terminal: every column as wide as its widest cell (header
 * included), two spaces between columns, the last column not padded, so that headers and rows
 * always line up whatever the cells hold (`hikvision`, a time with its offset, a long name).
 * Cells often come from outside (terminals, the HRMS): they are shown with control characters
 * escaped. Widths are display columns (a CJK character or an emoji takes two), not UTF-16 units.
 * `right`: columns of numbers, aligned to the right.
 */
export function textTable(
  head: readonly string[],
  body: readonly (readonly string[])[],
  opts: { right?: readonly number[] } = {},
): string {
  return textTableLines(head, body, opts).join('\n') + '\n';
}

/** The table's lines (header first), for listings that put more lines under a row. */
export function textTableLines(
  head: readonly string[],
  body: readonly (readonly string[])[],
  opts: { right?: readonly number[] } = {},
): string[] {
  const rows = body.map((r) => r.map(escapeControls));
  const heads = head.map(escapeControls);
  const right = new Set(opts.right ?? []);
  // A loop, not Math.max(...rows): a spread of 200,000 rows overflows the call stack.
  const widths = heads.map(displayWidth);
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(c))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) =>
        right.has(i) ? padWidth(c, widths[i] ?? 0, 'start') : i === cells.length - 1 ? c : padWidth(c, widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(heads), ...rows.map(line)];
}
