import { writePrivateFile } from '../util/private-file.js';
import { readSmallPlainFile } from '../util/small-file.js';
import { escapeControls } from '../util/terminal-text.js';
import { statusJson } from './json.js';
import { readStatusJson, statusJsonPath } from './daemon-probe.js';
import type { LastStop } from './last-stop.js';

/** The largest status log marked: far past what the daemon writes (a few KB per terminal). */
const MAX_STATUS_LOG_BYTES = 32 * 1024 * 1024;

/**
 * The status log's last state, marked by a fatal exit: its files (status.txt, status.json, the
 * first thing an admin opens) went on saying the daemon ran, as of its last interval. status.txt
 * gets why it stopped on top, status.json its `daemon` filled in as `punchgate status` fills it.
 * `stop.reason` is scrubbed already (the writer's Secrets). Never throws, never waits: the process
 * is exiting (a FIFO put at status.txt's name held it at its exit for good, found by an adversarial
 * trial: the files are read only when plain files, small-file.ts).
 */
export function markStatusLog(statusPath: string | undefined, stop: LastStop): void {
  if (!statusPath) return;
  const head = `punchgate run STOPPED at ${stop.at} with exit code ${stop.exitCode}: ${escapeControls(stop.reason)}\nWhat follows is as it saw it before it stopped.\n\n`;
  try {
    writePrivateFile(statusPath, head + readSmallPlainFile(statusPath, MAX_STATUS_LOG_BYTES));
  } catch {
    // No status log written yet (it stopped while starting), or its disk is the trouble.
  }
  const jsonPath = statusJsonPath(statusPath);
  try {
    const report = readStatusJson(statusPath) as Record<string, unknown>;
    const daemon = { running: false, statusLogAt: stop.at, stale: false, lastStop: stop };
    // As the daemon writes it (statusJson): the reason may quote outside text, a crash's message.
    writePrivateFile(jsonPath, statusJson({ ...report, daemon }));
  } catch {
    // As above.
  }
}
