import type { AppContext } from '../context.js';
import type { TerminalFault } from '../sources/poll-outcome.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { printable } from '../util/terminal-text.js';

/**
 * A terminal a command could not reach or read: its name, the cause and the fix, in the words
 * the status and `check` use, and exit 75 (try again once the fix is made).
 */
export function terminalFaultError(ctx: Pick<AppContext, 'secrets'>, name: string, f: TerminalFault): ExitError {
  return new ExitError(
    `${name}: ${printable(ctx.secrets.scrub(f.cause), 500)} — ${printable(ctx.secrets.scrub(f.fix), 500)}`,
    EXIT.TEMPFAIL,
  );
}
