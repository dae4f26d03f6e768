import { localTimeOf } from '../util/local-time.js';
import { escapeControls } from '../util/terminal-text.js';
import type { LastStop } from './last-stop.js';

/**
 * How the status and check say the record of the last stop: its time first, as the last stop
 * *recorded* (a start that stops before it knows where the journal is records nothing).
 */
export function lastStopWords(stop: LastStop): string {
  return `the last stop recorded, at ${localTimeOf(stop.at)}: exit code ${stop.exitCode}, saying: ${escapeControls(stop.reason)}`;
}

/**
 * The fix beside a recorded stop: what its line says, or, while the config file does not load now
 * (`configFails`), that too. The status and check only get that far with the last good copy of the
 * config in hand (without one they stop on the file, exit code 78), and so does a start: it runs
 * on that copy, as its own alert says. The fix said a start would stop with 78 and record nothing,
 * while it ran on the copy (and stopped, if so, for the same reason as before).
 */
export function lastStopFix(configFails: boolean): string {
  return configFails
    ? 'the config file does not load now, so a start would run on its last good copy (the config alert says on what): do what its last line says above and correct the file (punchgate check --config-only lists its problems), then start it: sudo systemctl start punchgate'
    : 'do what its last line says above, then start it: sudo systemctl start punchgate';
}
