/**
 * Cells a spreadsheet wrote into a CSV as formulas. Excel keeps a code's leading zeros by
 * exporting it as the text formula `="0042"` (and many HR exports write every code so); read
 * literally, the code `="0042"` went to the HRMS, which no employee has. That form is text in
 * every spreadsheet, so it is read as its text. Any other formula (`=A2`, `=1+1`) stands for a
 * value the CSV does not hold: the line is bad, never a punch under the formula's text.
 */
const TEXT_FORMULA = /^="((?:[^"]|"")*)"$/;

/** The value of a cell: the cell itself, the text of a `="..."` formula, or why it has none. */
export function spreadsheetValue(cell: string): { value: string } | { formula: string } {
  if (cell.charCodeAt(0) !== 0x3d /* = */) return { value: cell };
  const text = TEXT_FORMULA.exec(cell);
  return text ? { value: text[1]!.replace(/""/g, '"') } : { formula: cell };
}

/** Why a line whose cell is a formula other than `="text"` is bad, with the fix. */
export const FORMULA_FIX =
  'a spreadsheet formula, not a value: in the spreadsheet, copy the column and paste it as values, then save the CSV again';
