import { nearMiss } from '../config/near-miss.js';
import { escapeControls } from '../util/terminal-text.js';
import { firstFew } from '../util/first-few.js';

/** At most this many names are listed: a site with 300 terminals gets the near miss and a count. */
const LISTED = 12;

/**
 * What follows "no terminal named X": the names there are (of the kinds the command takes) and
 * the near miss, so a typo or a name from another config is seen at once:
 * ` (the terminals are: gate-1, gate-2; did you mean gate-1?)`.
 */
export function terminalNamesHint(name: string, terminals: readonly { name: string }[], what = 'terminals'): string {
  if (terminals.length === 0) return ` (the config has no ${what})`;
  const names = terminals.map((t) => t.name);
  const meant = nearMiss(name, names);
  const shown = firstFew(names.map(escapeControls), LISTED);
  return ` (the ${what} are: ${shown}${meant ? `; did you mean ${escapeControls(meant)}?` : ''})`;
}
