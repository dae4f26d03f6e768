import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { UNKNOWN_CARD_PREFIX } from '../punch.js';
import { alertsFor, punches } from './alerts.js';
import { addPushStatus, pushAlerts } from './push.js';
import type { StatusReport, TerminalStatus } from './types.js';

export type { StatusReport, TerminalStatus } from './types.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** Everything `punchgate status` and the status log show, read from the journal. */
export function buildStatus(journal: Journal, config: Config, now: number): StatusReport {
  const counts = journal.counts();
  const oldest = journal.queries.oldestPending();
  const d = journal.deliveryState.get();
  const records = new Map(journal.terminals.list().map((t) => [t.name, t]));
  const terminals: TerminalStatus[] = config.terminals.map((t) => {
    const r = records.get(t.name);
    return {
      name: t.name,
      kind: t.kind,
      online: r?.online ?? false,
      lastPollAt: iso(r?.lastPollAt),
      lastSuccessAt: iso(r?.lastSuccessAt),
      skewSeconds: r?.skewSeconds ?? null,
      records: r?.records ?? null,
      users: r?.users ?? null,
      serial: r?.serial ?? '',
      offlineSince: iso(r?.offlineSince),
      lastError: r?.lastError ?? null,
      previousSerial: r?.previousSerial ? r.previousSerial : null,
      firmware: r?.firmware ?? null,
    };
  });
  const report: StatusReport = {
    site: config.site,
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
    },
    terminals,
    alerts: [],
  };
  addPushStatus(report, journal, config, now);
  report.alerts = alertsFor(report, journal.queries.rejectionSummary(), now);
  report.alerts.push(...pushAlerts(report, now));
  for (const u of journal.queries.codesWithPrefix(UNKNOWN_CARD_PREFIX)) {
    report.alerts.push(
      `terminal ${u.terminal}: ${punches(u.count)} from cards not in its code map (${u.codes.join(', ')}): add them to the code map, then punchgate punches retry`,
    );
  }
  return report;
}
