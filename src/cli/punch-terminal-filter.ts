import type { TerminalConfig } from '../config/terminals.js';
import type { Journal } from '../journal/journal.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { escapeControls } from '../util/terminal-text.js';
import { terminalNamesHint } from './terminal-names.js';

/**
 * `--terminal NAME` of the punches commands (the listing, export, retry, release): a name that is
 * neither a terminal of the config nor one the journal holds punches of (a terminal since
 * removed, the imports') is a typo, refused with the names there are (exit 78, as `poll` and
 * `import` refuse it). Without this, `--terminal gate1` listed, exported, retried and released
 * nothing and said only "no punches match" or "0 ... queued again", exit 0: a new-user trial.
 */
export function checkTerminalFilter(
  name: string | undefined,
  terminals: readonly TerminalConfig[],
  journal: Pick<Journal, 'queries'>,
): void {
  if (name === undefined || terminals.some((t) => t.name === name) || journal.queries.hasTerminal(name)) return;
  throw new ExitError(
    `--terminal: no terminal named "${escapeControls(name)}" in the config, and no punch of one in the journal${terminalNamesHint(name, terminals)}`,
    EXIT.CONFIG,
  );
}
