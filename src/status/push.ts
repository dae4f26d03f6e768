import { pushOfflineAfterMs } from '../config/adms.js';
import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { PushStore } from '../journal/push-store.js';
import { ALERT, type Alert } from './alert-words.js';
import { localTime } from '../util/local-time.js';
import type { PushRefusalStatus, StatusReport, TerminalStatus } from './types.js';

/** Refused pushers seen this recently are shown. */
const REFUSALS_SHOWN_MS = 24 * 3_600_000;
/** Malformed lines this recent raise an alert. */
const MALFORMED_ALERT_MS = 24 * 3_600_000;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/**
 * Push terminals (kind adms) in the status: online means a contact within a few Delay periods,
 * judged now (the daemon may have stopped since it last wrote), and what the receiver saw.
 */
export function addPushStatus(report: StatusReport, journal: Journal, config: Config, now: number): void {
  const push = config.terminals.filter((t) => t.kind === 'adms');
  if (push.length === 0 && !config.adms) return;
  const store = new PushStore(journal.db, journal, { now: () => now });
  const records = new Map(store.pushTerminals().map((r) => [r.terminal, r]));
  const limit = pushOfflineAfterMs(config.adms);
  for (const t of report.terminals) {
    const cfg = push.find((p) => p.name === t.name);
    if (!cfg) continue;
    const r = records.get(t.name);
    const sameDevice = r !== undefined && r.serial.toUpperCase() === cfg.serial.toUpperCase();
    const last = sameDevice ? r.lastContactAt : null;
    const online = last !== null && now - last <= limit;
    Object.assign(t, {
      serial: cfg.serial,
      online,
      lastPollAt: iso(last),
      lastSuccessAt: iso(last),
      offlineSince: online ? null : iso(last),
      problem: online
        ? null
        : {
            cause: last === null ? 'it has not called this box yet' : `no call since ${localTime(last)}`,
            fix: "check its power and network, and that its Cloud Server Setting names this box's address and adms.listen port",
          },
      stale: !online && last !== null,
      push: {
        lastContactAt: iso(last),
        address: sameDevice ? r.address : null,
        lastUploadAt: sameDevice ? iso(r.lastUploadAt) : null,
        uploads: sameDevice ? r.uploads : 0,
        received: sameDevice ? r.received : 0,
        malformed: sameDevice ? r.malformed : 0,
        lastMalformed: sameDevice ? r.lastMalformed : null,
        lastMalformedAt: sameDevice ? iso(r.lastMalformedAt) : null,
      },
    } satisfies Partial<TerminalStatus>);
  }
  const known = new Set(push.map((t) => t.serial.toUpperCase()));
  report.pushRefusals = store
    .refusals(now - REFUSALS_SHOWN_MS)
    .filter((r) => r.reason === 'address' || !known.has(r.serial.toUpperCase()))
    .map((r): PushRefusalStatus => ({
      ...r,
      firstSeenAt: iso(r.firstSeenAt)!,
      lastSeenAt: iso(r.lastSeenAt)!,
    }));
}

/** Alerts of push terminals: refused serials, malformed uploads. (Silence is the general offline alert.) */
export function pushAlerts(report: StatusReport, now: number): Alert[] {
  const out: Alert[] = [];
  for (const r of report.pushRefusals ?? []) {
    out.push(r.reason === 'unknown' ? ALERT.pushUnknownSerial(r) : ALERT.pushOutsideAllowFrom(r));
  }
  for (const t of report.terminals) {
    const p = t.push;
    if (!p?.lastMalformedAt || now - Date.parse(p.lastMalformedAt) > MALFORMED_ALERT_MS) continue;
    out.push(ALERT.pushMalformed(t, { ...p, lastMalformedAt: p.lastMalformedAt }));
  }
  return out;
}
