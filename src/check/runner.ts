import type { AttendanceSender } from '../hrms/attendance.js';
import type { OpenSerialLink } from '../sources/serial/port.js';
import type { ClientFactory } from '../sources/zk/poll.js';
import { systemClock, type Clock } from '../util/clock.js';
import { EXIT } from '../util/exit-codes.js';
import { Secrets } from '../util/secrets.js';
import { checkConfig } from './config-check.js';
import { checkDaemon } from './daemon-check.js';
import { checkDisk } from './disk-check.js';
import { checkHrms } from './hrms-check.js';
import { checkJournal } from './journal-check.js';
import { readTerminalLedger } from './ledger.js';
import { checkNotify, type NotifyCheckDeps } from './notify-check.js';
import { checkSerialTerminal } from './serial-check.js';
import type { CheckReport, CheckResult } from './types.js';
import { checkZkTerminal } from './zk-check.js';

export interface CheckOptions {
  configPath: string;
  /**
   * Health-check mode: the config, the journal opened read-only (no quick_check) and the
   * daemon's status log freshness; no network, no devices. Exit 0 or 1.
   */
  quick?: boolean;
  /** Default process.env (PUNCHGATE_HRMS_TOKEN, CREDENTIALS_DIRECTORY). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Test seams; the defaults reach the real things. */
  zkClientFactory?: ClientFactory;
  openSerial?: OpenSerialLink;
  hrmsSender?: AttendanceSender;
  notify?: NotifyCheckDeps;
}

/**
 * Runs every check and returns the report, with every known secret (comm keys, the token)
 * scrubbed from it. Terminals are checked side by side: one unreachable terminal does not
 * hold up the others.
 */
export async function runChecks(opts: CheckOptions): Promise<CheckReport> {
  const quick = opts.quick ?? false;
  const clock = opts.clock ?? systemClock;
  const secrets = new Secrets();
  const checks: CheckResult[] = [];

  const { result: configResult, config } = checkConfig(opts.configPath);
  checks.push(configResult);
  if (!config) return finish(checks, secrets, quick, quick ? EXIT.FAILURE : EXIT.CONFIG);

  checks.push(checkJournal(config.journal.path, { quick }));
  if (quick) {
    checks.push(checkDaemon(config, clock));
    return finish(checks, secrets, quick);
  }
  checks.push(checkDisk(config.journal.path));
  checks.push(checkNotify(opts.notify));

  const ledger = readTerminalLedger(config.journal.path);
  const terminalChecks = config.terminals.map((t, i) => {
    if (!t.enabled) return null;
    return t.kind === 'zk'
      ? checkZkTerminal(t, i, { clock, factory: opts.zkClientFactory, lastSeen: ledger.get(t.name) })
      : checkSerialTerminal(t, i, opts.openSerial);
  });
  const [hrms, ...terminals] = await Promise.all([
    checkHrms(config, { env: opts.env ?? process.env, secrets, sender: opts.hrmsSender }),
    ...terminalChecks,
  ]);
  for (const t of terminals) if (t) checks.push(t);
  checks.push(hrms!);
  return finish(checks, secrets, quick);
}

function finish(
  checks: CheckResult[],
  secrets: Secrets,
  quick: boolean,
  failedCode: number = EXIT.FAILURE,
): CheckReport {
  const clean = checks.map((c) => ({
    ...c,
    detail: secrets.scrub(c.detail),
    ...(c.fix !== undefined ? { fix: secrets.scrub(c.fix) } : {}),
    ...(c.problems ? { problems: c.problems.map((p) => secrets.scrub(p)) } : {}),
  }));
  const ok = clean.every((c) => c.status !== 'fail');
  return { ok, exitCode: ok ? EXIT.OK : failedCode, quick, checks: clean };
}
