import { statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Clock } from '../util/clock.js';
import { errorCode, errorText, fail, pass, warn, type CheckResult } from './types.js';

/** Slack on top of three missed rewrites before the status log counts as stale. */
const SLACK_MS = 30_000;

/**
 * Is `punchgate run` alive and not stuck? It rewrites the status log every `status.intervalMs`
 * from its event loop, so a file older than three intervals means a dead or hung daemon.
 * Only in `--quick` mode (the container health check), where a running daemon is expected.
 */
export function checkDaemon(config: Config, clock: Clock): CheckResult {
  const { path, intervalMs } = config.status;
  if (!path || intervalMs <= 0)
    return pass('daemon', 'status log disabled (status.intervalMs: 0): liveness not checked');
  const limit = 3 * intervalMs + SLACK_MS;
  try {
    const age = clock.now() - statSync(path).mtimeMs;
    if (age > limit) {
      return fail(
        'daemon',
        `the status log ${path} was last written ${Math.round(age / 1000)} s ago (expected every ${Math.round(intervalMs / 1000)} s)`,
        'punchgate run is stopped or stuck: look at its log, and restart it',
      );
    }
    return pass('daemon', `status log written ${Math.max(0, Math.round(age / 1000))} s ago`);
  } catch (e) {
    if (errorCode(e) === 'ENOENT')
      return warn('daemon', `no status log at ${path} yet (punchgate run writes it at start)`);
    return fail(
      'daemon',
      `cannot read the status log ${path}: ${errorText(e)}`,
      'check status.path and its permissions',
    );
  }
}
