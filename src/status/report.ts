import type { Config } from '../config/schema.js';
import { DEFAULT_SINK_NAME, sinksOf, type SinkConfig } from '../config/sinks.js';
import { holdPolicy } from '../sinks/hold-policy.js';
import type { Journal } from '../journal/journal.js';
import { freeBytesAt } from '../util/disk.js';
import { punchgateVersion } from '../util/version.js';
import { alertsFor, type AlertFacts } from './alerts.js';
import { heldBehindRefusedCount } from './refusals.js';
import { alertLine } from './alert-words.js';
import { deviceNoteAlerts } from './dahua.js';
import { addBiotimeDevices, biotimeAlerts } from './biotime.js';
import { hikvisionAlerts } from './hikvision.js';
import { addListenerStatus } from './listeners.js';
import { addPushStatus, pushAlerts } from './push.js';
import { backupAlert, backupStatus } from './backup.js';
import { damagedWalAlerts } from './damaged-wal.js';
import { addSinkStatus, shiftSyncAlerts, sinkKeysOf } from './sinks.js';
import { removedTerminalsOf } from './removed-terminals.js';
import { importedApartOf } from './imported-apart.js';
import { loginRefused } from './login-refused.js';
import { terminalProblem } from './terminal-problem.js';
import { unknownCardAlerts } from './unknown-cards.js';
import { defaultCredential } from './credential.js';
import type { ConfigStatus, DaemonLiveness, LiveFacts, SinkCredential, StatusReport, TerminalStatus } from './types.js';

export type { BackupStatus, ConfigStatus, DaemonLiveness, LiveFacts, StatusReport, TerminalStatus } from './types.js';

/** Records refused at the journal's door are an alert for a day after the last one. */
const REFUSED_RECORDS_SHOWN_MS = 86_400_000;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export interface StatusProbes {
  /** The daemon's in-memory facts: inside the daemon its own, in `punchgate status` from its status file. */
  live?: LiveFacts;
  /** `punchgate status` only: whether the daemon runs (inside the daemon: it does). */
  daemon?: DaemonLiveness;
  /** Free bytes where the journal lives; measured when not given. */
  freeBytes?: number | null;
  /** `punchgate status` with a config file that does not load: what it read instead (when the daemon does not say). */
  config?: ConfigStatus;
}

/**
 * Everything `punchgate status`, the status log (and any page showing the status) show, read from
 * the journal and the probes: the one place the figures and alerts are made.
 */
/** A terminal's direction setting in words when it is not the default (absent: device, the usual meanings). */
function directionOf(t: Config['terminals'][number]): { direction?: string } {
  const states = Object.entries(t.directionStates ?? {}).map(([k, v]) => `${k}: ${v}`);
  if ((t.direction ?? 'device') === 'device' && states.length === 0) return {};
  return { direction: states.length > 0 ? `device (${states.join(', ')})` : t.direction! };
}

export function buildStatus(journal: Journal, config: Config, now: number, probes: StatusProbes = {}): StatusReport {
  const counts = journal.counts();
  const oldest = journal.queries.oldestPending();
  const claim = journal.queries.oldestClaim();
  const d = journal.deliveryState.get();
  const records = new Map(journal.terminals.list().map((t) => [t.name, t]));
  const terminals: TerminalStatus[] = config.terminals.map((t) => {
    const r = records.get(t.name);
    const online = r?.online ?? false;
    return {
      name: t.name,
      kind: t.kind,
      online,
      lastPollAt: iso(r?.lastPollAt),
      lastSuccessAt: iso(r?.lastSuccessAt),
      skewSeconds: r?.skewSeconds ?? null,
      records: r?.records ?? null,
      users: r?.users ?? null,
      serial: r?.serial ?? '',
      offlineSince: iso(r?.offlineSince),
      lastError: r?.lastError ?? null,
      problem: terminalProblem(t, r),
      // Offline: what it last reported is as of its last answer, not now.
      stale: !online && r?.lastSuccessAt != null,
      previousSerial: r?.previousSerial ? r.previousSerial : null,
      serialChangedAt: r?.previousSerial ? iso(r.serialChangedAt) : null,
      firmware: r?.firmware ?? null,
      ...(loginRefused(t, journal.sourceState, now) ? { loginRefused: true as const } : {}),
      ...directionOf(t),
    };
  });
  const removedTerminals = removedTerminalsOf(journal, config);
  const importedApart = importedApartOf(journal, config);
  const live = probes.live ?? probes.daemon?.live;
  const report: StatusReport = {
    site: config.site,
    version: punchgateVersion(),
    generatedAt: iso(now)!,
    punches: counts,
    oldestPending: oldest
      ? { logTime: oldest.logTime, terminal: oldest.terminal, queuedAt: iso(oldest.createdAt)! }
      : null,
    delivery: {
      auth: d.auth,
      authFailedSince: iso(d.authFailedSince),
      lastAttemptAt: iso(d.lastAttemptAt),
      lastSuccessAt: iso(d.lastSuccessAt),
      lastResult: d.lastResult,
      lastError: d.lastError,
      lastErrorAt: iso(d.lastErrorAt),
      failingSince: iso(d.failingSince),
      nextTryAt: iso(live?.delivery?.nextTryAt),
      probing: live?.delivery?.probing ?? false,
      ...credentialOf(defaultCredential(config)),
    },
    terminals,
    ...(removedTerminals.length > 0 ? { removedTerminals } : {}),
    ...(importedApart ? { importedApart } : {}),
    journal: {
      path: journal.path,
      busySince: iso(live?.journalBusySince),
      heldPunches: live?.heldPunches ?? 0,
      freeBytes: probes.freeBytes !== undefined ? probes.freeBytes : measureFree(journal.path),
      inflightSince: iso(claim?.claimedAt),
      ...(live?.diskSync ? { diskSync: live.diskSync } : {}),
      ...(live?.checkpoints ? { checkpoints: { ...live.checkpoints, failedAt: iso(live.checkpoints.failedAt) } } : {}),
    },
    config: live?.config ?? probes.config ?? null,
    backup: backupStatus(journal.path, config.journal.backupAlertAfterDays),
    daemon: probes.daemon
      ? {
          running: probes.daemon.running,
          statusLogAt: iso(probes.daemon.statusLogAt),
          stale: probes.daemon.stale,
          ...(probes.daemon.lastStop ? { lastStop: probes.daemon.lastStop } : {}),
        }
      : null,
    alerts: [],
    alertItems: [],
  };
  const steps = live?.clockSteps ?? [];
  if (steps.length > 0) {
    const net = steps.reduce((n, s) => n + s.deltaMs, 0);
    report.boxClock = {
      steps: steps.map((s) => ({ at: iso(s.at)!, seconds: Math.round(s.deltaMs / 1000) })),
      behindSeconds: net < 0 ? Math.round(-net / 1000) : 0,
    };
  }
  if (live?.eventLoop) report.eventLoop = { ...live.eventLoop, since: iso(live.eventLoop.since)! };
  if (live?.startedAt !== undefined) report.runningSince = iso(live.startedAt)!;
  addPushStatus(report, journal, config, now, live?.startedAt ?? null);
  addBiotimeDevices(report, journal, config);
  const facts: AlertFacts = {
    refused: journal.queries.refusedPunches(),
    heldBehindRefused: heldBehindRefusedCount(journal, holdPolicy(sinksOf(config)[0] ?? { kind: '' })),
    quarantine: journal.queries.quarantineSummary(),
    inflight: claim,
    requestBoundMs: requestBound(sinksOf(config)[0]),
    deliveryAlertAfterMs: config.delivery.alertAfterMinutes * 60_000,
    defaultSinkKeys: sinkKeysOf(config, sinksOf(config)[0] ?? { name: DEFAULT_SINK_NAME }),
    syncClock: new Set(config.terminals.filter((t) => 'syncClock' in t && t.syncClock).map((t) => t.name)),
    refusedRecords: journal.refusedRecords.list(now - REFUSED_RECORDS_SHOWN_MS),
    clockSteps: steps,
  };
  // Before the terminals' alerts: push terminals that cannot reach a receiver that does not listen say that instead.
  const listenerAlerts = addListenerStatus(report, config, live);
  const alerts = [...listenerAlerts, ...alertsFor(report, facts, now)];
  alerts.push(...pushAlerts(report, now));
  alerts.push(...hikvisionAlerts(journal, config, now));
  alerts.push(...deviceNoteAlerts(journal, config, now));
  alerts.push(...biotimeAlerts(journal, config, now));
  alerts.push(...unknownCardAlerts(journal.db, config.terminals, now, sinksOf(config)[0]?.kind));
  alerts.push(...addSinkStatus(report, journal, config, live, now));
  alerts.push(...shiftSyncAlerts(config, live, now));
  const backupOld = backupAlert(report.backup!, now);
  if (backupOld) alerts.push(backupOld);
  alerts.push(...damagedWalAlerts(journal.path));
  const shiftSync = Object.entries(live?.sinks ?? {}).filter(([, l]) => l.shiftSync !== undefined);
  if (shiftSync.length > 0) report.shiftSync = Object.fromEntries(shiftSync.map(([name, l]) => [name, l.shiftSync!]));
  report.alertItems = alerts;
  report.alerts = alerts.map(alertLine);
  return report;
}

/** How long one request of the default sink may take (an inflight claim far older is stuck). */
function requestBound(sink: SinkConfig | undefined): number {
  if (!sink) return 30_000;
  return sink.kind === 'hrms' ? sink.connectTimeoutMs + sink.timeoutMs : sink.timeoutMs * 2;
}

/** The `credential` key, where there is a sink (absent keys stay absent in status.json). */
function credentialOf(c: SinkCredential | undefined): { credential?: SinkCredential } {
  return c ? { credential: c } : {};
}

function measureFree(path: string): number | null {
  try {
    return freeBytesAt(path);
  } catch {
    return null;
  }
}
