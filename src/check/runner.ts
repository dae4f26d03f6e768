import type { AttendanceSender } from '../hrms/attendance.js';
import type { OpenSerialLink } from '../sources/serial/port.js';
import type { ClientFactory } from '../sources/zk/poll.js';
import type { HikClientFactory } from '../sources/hikvision/index.js';
import type { BioClientFactory } from '../sources/biotime/index.js';
import { findLastGood, type LastGood } from '../config/last-good.js';
import { sinksOf } from '../config/sinks.js';
import { checkTerminalConfig, terminalSecrets } from '../sources/build.js';
import { localTime } from '../util/local-time.js';
import { systemClock, type Clock } from '../util/clock.js';
import { EXIT } from '../util/exit-codes.js';
import { containerZoneWarning, type ZoneFacts } from '../util/container-zone.js';
import { Secrets } from '../util/secrets.js';
import { punchgateVersion } from '../util/version.js';
import { runningDiskSync, runningListener, runningReport } from '../status/daemon-probe.js';
import { checkAdmsReceiver, checkAdmsTerminal, checkPushRefusals, readPushState } from './adms-check.js';
import { checkConfig } from './config-check.js';
import { secretFilesReadableByAll } from '../config/secret-files.js';
import { checkDaemon } from './daemon-check.js';
import { checkListener } from './listen-check.js';
import { checkStatusToken } from './status-token-check.js';
import { sameClockOffset } from '../status/alerts.js';
import { ALERT } from '../status/alert-words.js';
import { OwnerLock } from '../journal/lock.js';
import { parseListen } from '../config/listen.js';
import { checkDisk } from './disk-check.js';
import { checkBackup } from './backup-check.js';
import { checkDamagedWals } from './damaged-wal-check.js';
import { checkHrms } from './hrms-check.js';
import { checkOtherSinks } from './sink-check.js';
import { checkJournal } from './journal-check.js';
import type { DahuaClientFactory } from '../sources/dahua/index.js';
import { checkDahuaTerminal } from './dahua-check.js';
import { checkHikvisionTerminal } from './hikvision-check.js';
import { checkHikvisionListen, readListenStates } from './hikvision-listen-check.js';
import { checkBiotimeServer } from './biotime-check.js';
import { readAuthRefusals, readTerminalLedger } from './ledger.js';
import { checkNotify, type NotifyCheckDeps } from './notify-check.js';
import { checkSerialTerminal } from './serial-check.js';
import { warn, type CheckReport, type CheckResult } from './types.js';
import { checkZkTerminal } from './zk-check.js';

export interface CheckOptions {
  configPath: string;
  /**
   * Health-check mode: the config, the journal opened read-only (no quick_check) and the
   * daemon's status log freshness; no network, no devices. Exit 0 or 1.
   */
  quick?: boolean;
  /** Only the config: parsed and validated, nothing else touched (systemd's ExecReload= runs it before SIGHUP). */
  configOnly?: boolean;
  /** Default process.env (PUNCHGATE_HRMS_TOKEN, CREDENTIALS_DIRECTORY). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Test seams; the defaults reach the real things. */
  zkClientFactory?: ClientFactory;
  hikClientFactory?: HikClientFactory;
  dahuaClientFactory?: DahuaClientFactory;
  bioClientFactory?: BioClientFactory;
  openSerial?: OpenSerialLink;
  hrmsSender?: AttendanceSender;
  notify?: NotifyCheckDeps;
  /** What the container time-zone warning looks at (default: this machine). */
  zoneFacts?: ZoneFacts;
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
  if (opts.configOnly) return finish(checks, secrets, quick, EXIT.CONFIG);
  if (!config) {
    // The daemon may run on its last good config meanwhile: say so (and, for the health check,
    // whether it runs is what matters: the broken file is an alert of its own).
    const copy = lastGoodOf(opts.configPath);
    if (!copy) return finish(checks, secrets, quick, quick ? EXIT.FAILURE : EXIT.CONFIG);
    checks.push(
      warn(
        'last good config',
        `${copy.path} (the last config that loaded from ${copy.source}, at ${localTime(copy.loadedAt)}): punchgate run starts on it while the file does not load`,
        `correct the file, check it with punchgate check --config-only, then sudo systemctl reload punchgate`,
      ),
    );
    if (quick) {
      checks[0] = { ...checks[0]!, status: 'warn' };
      checks.push(
        checkJournal(copy.config.journal.path, {
          quick,
          statusPath: copy.config.status.path,
          terminals: copy.config.terminals,
          now: clock.now(),
          defaultSink: sinksOf(copy.config)[0]?.kind,
        }),
      );
      checks.push(
        checkDaemon(copy.config, clock, { required: true, configFails: true, report: runningReport(copy.config) }),
      );
      return finish(checks, secrets, quick);
    }
    checks.push(
      checkDaemon(copy.config, clock, { required: false, configFails: true, report: runningReport(copy.config) }),
    );
    return finish(checks, secrets, quick, EXIT.CONFIG);
  }
  const env = opts.env ?? process.env;
  for (const s of terminalSecrets(config.terminals, env)) secrets.add(s, { runs: false });

  checks.push(
    checkJournal(config.journal.path, {
      quick,
      statusPath: config.status.path,
      terminals: config.terminals,
      now: clock.now(),
      defaultSink: sinksOf(config)[0]?.kind,
    }),
  );
  // What the running daemon last wrote (status.json), read once for every check that asks it.
  const daemonReport = runningReport(config);
  if (quick) {
    checks.push(checkDaemon(config, clock, { required: true, report: daemonReport }));
    return finish(checks, secrets, quick);
  }
  // A secret file any user may read: said, not refused (the daemon says it at start and reload too).
  for (const f of secretFilesReadableByAll(opts.configPath, config)) checks.push(warn('secret file', f.detail, f.fix));
  checks.push(checkDaemon(config, clock, { required: false, report: daemonReport }));
  checks.push(checkDisk(config.journal.path, undefined, runningDiskSync(daemonReport)));
  checks.push(checkBackup(config.journal.path, config.journal.backupAlertAfterDays, clock.now()));
  checks.push(...checkDamagedWals(config.journal.path));
  const zone = containerZoneWarning(config.terminals, opts.zoneFacts);
  if (zone) checks.push(warn('time zone', zone.detail, zone.fix));
  checks.push(checkNotify(opts.notify));

  const ledger = readTerminalLedger(config.journal.path);
  const refusals = readAuthRefusals(
    config.journal.path,
    config.terminals.filter((t) => t.kind === 'hikvision' || t.kind === 'dahua').map((t) => t.name),
  );
  const push = readPushState(
    config.journal.path,
    clock.now(),
    config.terminals.filter((t) => t.kind === 'adms'),
  );
  // The config punchgate run loaded (its last good copy), while it runs: an edit not reloaded yet.
  const loaded = OwnerLock.isHeld(config.journal.path) ? lastGoodOf(opts.configPath)?.config : undefined;
  const runningAt = (name: string) => {
    const t = loaded?.terminals.find((r) => r.name === name);
    return t?.kind === 'zk' ? { host: t.host, port: t.port } : undefined;
  };
  const terminalChecks = config.terminals.map((t, i) => {
    if (!t.enabled) return null;
    switch (t.kind) {
      case 'zk':
        return checkZkTerminal(t, i, {
          clock,
          factory: opts.zkClientFactory,
          lastSeen: ledger.get(t.name),
          runningAt: runningAt(t.name),
        });
      case 'hikvision':
        return checkHikvisionTerminal(t, i, {
          clock,
          factory: opts.hikClientFactory,
          env,
          refusal: refusals.get(t.name),
        });
      case 'dahua':
        return checkDahuaTerminal(t, i, {
          clock,
          env,
          refusal: refusals.get(t.name),
          factory: opts.dahuaClientFactory,
        });
      case 'serial':
        return checkSerialTerminal(t, i, opts.openSerial);
      case 'biotime':
        return checkBiotimeServer(t, i, { factory: opts.bioClientFactory, env });
      case 'adms':
        return checkAdmsTerminal(t, {
          adms: config.adms,
          ledger: ledger.get(t.name),
          push: push.terminals.get(t.name),
          unreadable: push.unreadable,
          kept: push.kept,
          zones: push.zones,
          registration: push.registrations.find(
            (r) => r.terminal === t.name && r.serial.toUpperCase() === t.serial.toUpperCase(),
          ),
          now: clock.now(),
        });
    }
  });
  const sinkChecks = checkOtherSinks(config, { env, secrets });
  const running = OwnerLock.isHeld(config.journal.path);
  const page = config.status.listen === false ? undefined : parseListen(config.status.listen);
  const [hrms, receiver, statusPage, ...terminals] = await Promise.all([
    checkHrms(config, { env, secrets, sender: opts.hrmsSender }),
    config.adms ? checkAdmsReceiver(config.adms, runningListener(daemonReport, 'push'), running) : null,
    // Port 0 (tests, a throwaway run) is any free port: nothing to check before the daemon has one.
    page && typeof page !== 'string' && page.port !== 0
      ? checkListener({
          name: 'status page',
          listener: 'status',
          listen: config.status.listen as string,
          host: page.host,
          port: page.port,
          daemon: runningListener(daemonReport, 'status'),
          running,
        })
      : null,
    ...terminalChecks,
  ]);
  if (receiver) checks.push(receiver);
  if (statusPage) checks.push(statusPage);
  const statusToken = config.status.listen === false ? undefined : checkStatusToken(config.status.authTokenFile);
  if (statusToken) checks.push(statusToken);
  for (const t of terminals) if (t) checks.push(t);
  const listening = config.terminals.filter((t) => t.kind === 'hikvision' && t.enabled && t.listen);
  const heard = readListenStates(
    config.journal.path,
    listening.map((t) => t.name),
  );
  for (const t of listening)
    if (t.kind === 'hikvision')
      checks.push(checkHikvisionListen(t, config.terminals.indexOf(t), config.adms, heard.get(t.name), clock.now()));
  checks.push(...sameSerialWarnings(checks));
  checks.push(...boxClockWarning(checks));
  if (config.adms)
    checks.push(
      ...checkPushRefusals(
        push.refusals,
        config.terminals.filter((t) => t.kind === 'adms'),
        !running,
      ),
    );
  checks.push(hrms!);
  checks.push(...(await Promise.all(sinkChecks)));
  return finish(checks, secrets, quick);
}

/** The copy of the last config that loaded, kept by punchgate run (undefined: none, or unreadable). */
function lastGoodOf(configPath: string): LastGood | undefined {
  try {
    return findLastGood(configPath, checkTerminalConfig);
  } catch {
    return undefined;
  }
}

/**
 * Every terminal clock read off this box by the same amount: the box's clock is more likely the
 * wrong one (the status's alert, in its words). Each terminal's own line still says its offset;
 * this one says to look at the box first, before setting any terminal to its time.
 */
function boxClockWarning(checks: readonly CheckResult[]): CheckResult[] {
  const known = checks.flatMap((c) =>
    c.skewSeconds !== undefined ? [{ name: c.name.replace(/^terminal /, ''), skewSeconds: c.skewSeconds }] : [],
  );
  const off = sameClockOffset(known);
  if (!off) return [];
  const a = ALERT.boxClockOff(off.names, off.skewSeconds);
  return [warn('box clock', a.cause, a.fix)];
}

/**
 * Two terminals answering with one serial number are one device listed twice (or two entries
 * pointing at one address): its punches are stored once, known by the serial, but the config
 * should say it once.
 */
function sameSerialWarnings(checks: readonly CheckResult[]): CheckResult[] {
  const bySerial = new Map<string, string[]>();
  for (const c of checks)
    if (c.serial) bySerial.set(c.serial, [...(bySerial.get(c.serial) ?? []), c.name.replace(/^terminal /, '')]);
  return [...bySerial]
    .filter(([, names]) => names.length > 1)
    .map(([serial, names]) =>
      warn(
        'terminals',
        `${names.join(' and ')} answer with the same serial ${serial}: one device listed twice (its punches are stored once, known by the serial)`,
        `keep one entry for that device in the config, or correct the host of the other`,
      ),
    );
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
  return { version: punchgateVersion(), ok, exitCode: ok ? EXIT.OK : failedCode, quick, checks: clean };
}
