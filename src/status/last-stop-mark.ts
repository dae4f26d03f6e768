import { readFileSync } from 'node:fs';
import { writePrivateFile } from '../util/private-file.js';
import { escapeControls } from '../util/terminal-text.js';
import { statusJsonPath } from './daemon-probe.js';
import type { LastStop } from './last-stop.js';

/**
 * The status log's last state, marked by a fatal exit: its files (status.txt, status.json, the
 * first thing an admin opens) went on saying the daemon ran, as of its last interval. status.txt
 * gets why it stopped on top, status.json its `daemon` filled in as `punchgate status` fills it.
 * `stop.reason` is scrubbed already (the writer's Secrets). Never throws: the process is exiting.
 */
export function markStatusLog(statusPath: string | undefined, stop: LastStop): void {
  if (!statusPath) return;
  const head = `punchgate run STOPPED at ${stop.at} with exit code ${stop.exitCode}: ${escapeControls(stop.reason)}\nWhat follows is as it saw it before it stopped.\n\n`;
  try {
    writePrivateFile(statusPath, head + readFileSync(statusPath, 'utf8'));
  } catch {
    // No status log written yet (it stopped while starting), or its disk is the trouble.
  }
  const jsonPath = statusJsonPath(statusPath);
  try {
    const report = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown> & { daemon?: unknown };
    const daemon = { running: false, statusLogAt: stop.at, stale: false, lastStop: stop };
    writePrivateFile(jsonPath, `${JSON.stringify({ ...report, daemon }, null, 2)}\n`);
  } catch {
    // As above.
  }
}
