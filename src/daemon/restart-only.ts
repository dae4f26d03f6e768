import type { Config } from '../config/schema.js';

/**
 * The settings a reload (SIGHUP) cannot apply: each is handed once, at start, to a part that
 * keeps it (the journal opened on its path with its tolerances and refusal policy, the status
 * log's file and timer, the log's level). The adms receiver says its own (receiver.configure).
 * A reload said these only in a log line while the status went on saying the file was in force
 * (a new-user trial): the names go to the status too (ConfigWatch.waitForRestart).
 */
const RESTART_ONLY: readonly (readonly [string, (c: Config) => unknown])[] = [
  ['site', (c) => c.site],
  ['journal.path', (c) => c.journal.path],
  ['journal.futureToleranceMinutes', (c) => c.journal.futureToleranceMinutes],
  ['journal.pastToleranceHours', (c) => c.journal.pastToleranceHours],
  ['delivery.rejectedRetry', (c) => c.delivery.rejectedRetry],
  ['delivery.deadAfterAttempts', (c) => c.delivery.deadAfterAttempts],
  ['delivery.deadAfterDays', (c) => c.delivery.deadAfterDays],
  ['status.path', (c) => c.status.path],
  ['status.intervalMs', (c) => c.status.intervalMs],
  ['log.level', (c) => c.log.level],
];

/** The config keys of `next` that differ from the running config and wait for a restart. */
export function restartOnlyChanges(running: Config, next: Config): string[] {
  return RESTART_ONLY.filter(([, of]) => JSON.stringify(of(next)) !== JSON.stringify(of(running))).map(([key]) => key);
}

/**
 * `next` with what a reload cannot apply kept as it runs: the rest of the daemon reads the running
 * values, and the next reload still finds them pending (compared with the running config).
 */
export function keepRestartOnly(running: Config, next: Config): Config {
  const j = running.journal;
  const d = running.delivery;
  return {
    ...next,
    site: running.site,
    journal: {
      ...next.journal,
      path: j.path,
      futureToleranceMinutes: j.futureToleranceMinutes,
      pastToleranceHours: j.pastToleranceHours,
    },
    delivery: {
      ...next.delivery,
      rejectedRetry: d.rejectedRetry,
      deadAfterAttempts: d.deadAfterAttempts,
      deadAfterDays: d.deadAfterDays,
    },
    status: { ...next.status, path: running.status.path, intervalMs: running.status.intervalMs },
    log: { ...next.log, level: running.log.level },
  };
}
