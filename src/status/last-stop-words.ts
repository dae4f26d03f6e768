import { localTimeOf } from '../util/local-time.js';
import { escapeControls } from '../util/terminal-text.js';
import type { LastStop } from './last-stop.js';

/**
 * How the status and check say the record of the last stop: its time first, as the last stop
 * *recorded*. A start that stops on a config file that does not load (exit 78) stops before it
 * knows where the journal is, and records nothing: the record may be older than the last try.
 */
export function lastStopWords(stop: LastStop): string {
  return `the last stop recorded, at ${localTimeOf(stop.at)}: exit code ${stop.exitCode}, saying: ${escapeControls(stop.reason)}`;
}

/**
 * The fix beside a recorded stop: what its line says, or, while the config file does not load
 * now, the file first (the record is then no proof of why the last start failed).
 */
export function lastStopFix(configFails: boolean): string {
  return configFails
    ? 'the config file does not load now: correct it first (punchgate check --config-only lists its problems; a start that stops on it, exit code 78, records no stop, so the stop above may be older than the last try), then start it: sudo systemctl start punchgate'
    : 'do what its last line says above, then start it: sudo systemctl start punchgate';
}
