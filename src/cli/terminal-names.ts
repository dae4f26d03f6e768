import { nearMiss } from '../config/near-miss.js';
import { escapeControls } from '../util/terminal-text.js';

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
  const shown = names.slice(0, LISTED).map(escapeControls).join(', ');
  const more = names.length > LISTED ? ` and ${names.length - LISTED} more` : '';
  return ` (the ${what} are: ${shown}${more}${meant ? `; did you mean ${escapeControls(meant)}?` : ''})`;
}
