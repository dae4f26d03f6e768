import { statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { OwnerLock } from '../journal/lock.js';
import { ALERT } from '../status/alert-words.js';
import { BUSY_ALERT_MS } from '../status/alerts.js';
import { readLastStop } from '../status/last-stop.js';
import { lastStopFix, lastStopWords } from '../status/last-stop-words.js';
import type { Alert, ConfigStatus, StatusReport } from '../status/types.js';
import type { Clock } from '../util/clock.js';
import { localTimeOf } from '../util/local-time.js';
import { fail, pass, warn, type CheckResult } from './types.js';

/** Slack on top of three missed rewrites before the status log counts as stale. */
const SLACK_MS = 30_000;

/**
 * Is `punchgate run` alive, and on which config? Alive is asked of the journal itself: the
 * daemon holds the journal's owner lock for its whole life, and the lock dies with the process
 * however it ends (a stopped daemon leaves a status log that still looks fresh for a minute).
 * Stuck is a daemon that holds the lock but no longer rewrites its status log. Which config it
 * runs on is in its status file (status.json).
 *
 * `required` (check --quick, the container health check): a daemon that is not running fails;
 * otherwise (plain check, often run before the first start) it is a warning.
 */
export function checkDaemon(
  config: Config,
  clock: Clock,
  /**
   * `configFails`: the config file does not load now, and `config` is its last good copy.
   * `report`: what the running daemon last wrote in its status.json (runningReport), read once
   * by the caller for all its checks.
   */
  opts: { required: boolean; configFails?: boolean; report: Partial<StatusReport> | undefined },
): CheckResult {
  const { path, intervalMs } = config.status;
  const lock = OwnerLock.pathFor(config.journal.path);
  const running = OwnerLock.isHeld(config.journal.path);
  let statusAt: number | null = null;
  try {
    if (path) statusAt = statSync(path).mtimeMs;
  } catch {
    statusAt = null;
  }
  const written =
    statusAt === null
      ? 'no status log yet'
      : `status log written ${Math.max(0, Math.round((clock.now() - statusAt) / 1000))} s ago`;
  if (!running) {
    // Why it last stopped on its own, kept until a later start succeeds: the status's words.
    const stop = readLastStop(config.journal.path);
    const said = stop ? `; ${lastStopWords(stop)}` : '';
    const detail = `punchgate run is not running: nothing holds the journal lock ${lock} (${written})${said}`;
    const fix = stop
      ? lastStopFix(opts.configFails ?? false)
      : 'start it: sudo systemctl start punchgate (journalctl -u punchgate -n 50 says why it stopped)';
    return opts.required ? fail('daemon', detail, fix) : warn('daemon', detail, fix);
  }
  const checked = Boolean(path) && intervalMs > 0;
  if (checked && (statusAt === null || clock.now() - statusAt > 3 * intervalMs + SLACK_MS)) {
    return fail(
      'daemon',
      `punchgate run holds the journal lock but has not rewritten its status log ${path} ${statusAt === null ? 'at all' : `for ${Math.round((clock.now() - statusAt) / 1000)} s`} (expected every ${Math.round(intervalMs / 1000)} s): it is stuck`,
      'look at journalctl -u punchgate -n 50, then sudo systemctl restart punchgate',
    );
  }
  // What the daemon last wrote, read once (by the caller): it replaces the file every few seconds,
  // and the answers below are of one moment (read three times, they could be of three).
  const { report } = opts;
  // Running, yet kept from writing by another process: journal-check's quick_check only reads
  // and passed (found by an adversarial trial: PASS while a BEGIN IMMEDIATE held it 20 s).
  const busy = journalBusy(report, clock);
  if (busy) return warn('daemon', `punchgate run is running, but ${busy.cause}`, busy.fix);
  // Running, with its checkpoints on its main thread since the checkpoint thread failed: the status's words.
  const checkpoints = checkpointsFailed(report);
  if (checkpoints) return warn('daemon', `punchgate run is running, but ${checkpoints.cause}`, checkpoints.fix);
  const running_ = report?.config ?? undefined;
  const on = running_ ? `; ${describeRunningConfig(running_)}` : '';
  const pid = OwnerLock.holderPid(config.journal.path);
  const result = `punchgate run is running (${pid ? `pid ${pid} ` : ''}holds the journal lock)${checked ? `, ${written}` : ''}${on}`;
  return running_?.runningOn === 'last-good'
    ? warn(
        'daemon',
        result,
        `correct ${running_.file}, check it with punchgate check --config-only, then sudo systemctl reload punchgate`,
      )
    : running_?.restartPending?.length
      ? // A reload loaded the file but could not apply these: the status's alert, in its words.
        warn('daemon', alertOf(running_).cause, alertOf(running_).fix)
      : pass('daemon', result);
}

const alertOf = (c: ConfigStatus) => ALERT.restartPending(c.file, c.restartPending ?? [], c.loadedAt);

/** The journal-busy alert of the daemon's status.json, when it says another process has held the journal long enough. */
function journalBusy(r: Partial<StatusReport> | undefined, clock: Clock): Alert | undefined {
  try {
    const j = r?.journal;
    const since = j?.busySince ? Date.parse(j.busySince) : NaN;
    if (!j || !Number.isFinite(since) || clock.now() - since < BUSY_ALERT_MS) return undefined;
    return ALERT.journalBusy(clock.now() - since, j.heldPunches, j.path, Array.isArray(r.terminals) ? r.terminals : []);
  } catch {
    return undefined; // a file of another shape than punchgate writes: nothing said of it
  }
}

/** The checkpoint alert of the daemon's status.json, while it says its checkpoint thread failed. */
function checkpointsFailed(r: Partial<StatusReport> | undefined): Alert | undefined {
  try {
    const c = r?.journal?.checkpoints;
    if (c?.thread !== 'failed') return undefined;
    const at = c.failedAt ? Date.parse(c.failedAt) : NaN;
    return ALERT.checkpointsOnMainThread(Number.isFinite(at) ? at : null, c.error ?? null, c.failures ?? 1);
  } catch {
    return undefined; // a file of another shape than punchgate writes: nothing said of it
  }
}

/** "it runs on /etc/punchgate/punchgate.yaml as loaded at ...", or on the last good copy. */
export function describeRunningConfig(c: ConfigStatus): string {
  return c.runningOn === 'last-good'
    ? `it runs on the last good config (loaded ${localTimeOf(c.loadedAt)}, kept at ${c.lastGood}) because ${c.file} does not load`
    : `it runs on ${c.file} as loaded at ${localTimeOf(c.loadedAt)}${c.failure ? ` (the file does not load since ${localTimeOf(c.failure.since)}: a reload would be refused)` : ''}`;
}
