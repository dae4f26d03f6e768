import { pushOfflineAfterMs } from '../config/adms.js';
import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { PushStore } from '../journal/push-store.js';
import { localTime } from '../util/local-time.js';
import { shownFacts } from '../sources/adms/security.js';
import type { PushDeviceFacts, PushRefusalStatus, StatusReport, TerminalStatus } from './types.js';

/** Refused pushers seen this recently are shown. */
const REFUSALS_SHOWN_MS = 24 * 3_600_000;

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
  const registrations = store.registrations();
  const kept = store.keptCounts();
  const events = store.pushEvents();
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
      push: {
        lastContactAt: iso(last),
        address: sameDevice ? r.address : null,
        lastUploadAt: sameDevice ? iso(r.lastUploadAt) : null,
        uploads: sameDevice ? r.uploads : 0,
        received: sameDevice ? r.received : 0,
        malformed: sameDevice ? r.malformed : 0,
        lastMalformed: sameDevice ? r.lastMalformed : null,
        lastMalformedAt: sameDevice ? iso(r.lastMalformedAt) : null,
        ...pushDetails(cfg.name, cfg.serial, registrations, kept, events),
      },
    } satisfies Partial<TerminalStatus>);
    if (t.push?.device?.firmware) t.firmware = t.push.device.firmware;
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

/** The protocol, device facts, kept uploads and non-punch counts of one push terminal. */
function pushDetails(
  name: string,
  serial: string,
  registrations: ReturnType<PushStore['registrations']>,
  kept: ReturnType<PushStore['keptCounts']>,
  events: ReturnType<PushStore['pushEvents']>,
): Pick<
  NonNullable<TerminalStatus['push']>,
  'protocol' | 'device' | 'kept' | 'notPunches' | 'trustedAddress' | 'otherAddress'
> {
  const reg = registrations.find((r) => r.terminal === name && r.serial.toUpperCase() === serial.toUpperCase());
  let device: PushDeviceFacts | undefined;
  if (reg?.registryCode) {
    const f = shownFacts(reg.facts);
    device = {
      model: f.model ?? null,
      firmware: f.firmware ?? null,
      pushVersion: f.pushVersion ?? null,
      registeredAt: iso(reg.registeredAt),
      capacities: Object.fromEntries(Object.entries(f.capacities).map(([k, v]) => [k, Number(v)])),
    };
  }
  return {
    protocol: reg?.protocol ?? 'attendance',
    ...(device ? { device } : {}),
    kept: kept
      .filter((k) => k.terminal === name)
      .map((k) => ({
        table: k.table,
        uploads: k.uploads,
        lines: k.lines,
        held: k.held,
        dropped: k.dropped,
        reparsed: k.reparsed,
        lastAt: iso(k.lastAt),
        lastReason: k.lastReason,
      })),
    notPunches: events
      .filter((e) => e.terminal === name)
      .map((e) => ({ table: e.table, code: e.code, count: e.count })),
    trustedAddress: reg?.trustedAddress ?? null,
    otherAddress: reg?.otherAddress
      ? { address: reg.otherAddress, count: reg.otherCount, lastAt: iso(reg.otherLastAt) }
      : null,
  };
}

/** Unknown serials alerted one by one up to this many; more are summarised in one alert. */
const UNKNOWN_LISTED = 3;

/** Kept uploads this recent, or still held, raise an alert. */
const KEPT_ALERT_MS = 24 * 3_600_000;

/**
 * Alerts of push terminals: refused serials, uploads kept raw (an unknown table, lines that could
 * not be read, events not known as punches). Silence is the general offline alert.
 */
export function pushAlerts(report: StatusReport, now: number): string[] {
  const out: string[] = [];
  const refusals = report.pushRefusals ?? [];
  // Each serial pushing from outside its allowFrom is evidence of its own: one alert each.
  for (const r of refusals.filter((x) => x.reason === 'address')) {
    const when = localTime(Date.parse(r.lastSeenAt));
    out.push(
      `terminal SN=${r.serial} (${r.terminal}) is pushing from ${r.address}, outside its allowFrom (last ${when}): refused; add the address to allowFrom if it is right`,
    );
  }
  // Unknown serials: one alert for a few, one summary for many (a device inventing serials cannot flood the alerts).
  const unknown = refusals.filter((x) => x.reason === 'unknown');
  if (unknown.length > 0 && unknown.length <= UNKNOWN_LISTED)
    for (const r of unknown)
      out.push(
        `terminal SN=${r.serial} is pushing but is not configured (from ${r.address}, last ${localTime(Date.parse(r.lastSeenAt))}): add it to terminals with kind: adms and serial: ${r.serial}, then reload`,
      );
  else if (unknown.length > UNKNOWN_LISTED) {
    const addresses = [...new Set(unknown.map((r) => r.address))];
    const requests = unknown.reduce((n, r) => n + r.count, 0);
    out.push(
      `${unknown.length} unknown serials pushing (${requests} requests refused, from ${addresses.slice(0, 5).join(', ')}${addresses.length > 5 ? ` and ${addresses.length - 5} more addresses` : ''}; e.g. SN=${unknown
        .slice(0, 3)
        .map((r) => r.serial)
        .join(
          ', SN=',
        )}): a device on the LAN is inventing serials, or many terminals are not configured; add the genuine ones to terminals with kind: adms, and keep the receiver's port to the terminals' network`,
    );
  }
  for (const t of report.terminals) {
    const other = t.push?.otherAddress;
    if (other?.lastAt && now - Date.parse(other.lastAt) <= KEPT_ALERT_MS)
      out.push(
        `terminal ${t.name} (SN=${t.serial}) was seen pushing from ${other.address} (${other.count} requests, last ${localTime(Date.parse(other.lastAt))}), but it pushes from ${t.push?.trustedAddress ?? '-'}: another device may be using its serial (its requests changed nothing: no stamp, command, result or contact); set allowFrom for ${t.name} to refuse it, or if the terminal moved, it is trusted at its new address once the old one has been silent for a few minutes`,
      );
    for (const k of t.push?.kept ?? []) {
      const recent = k.lastAt !== null && now - Date.parse(k.lastAt) <= KEPT_ALERT_MS;
      if (k.held === 0 && !recent) continue;
      const dropped = k.dropped > 0 ? `; ${k.dropped} dropped to stay within adms.keptUploads` : '';
      out.push(
        `terminal ${t.name}: ${k.held} ${k.table} upload(s) answered OK could not be turned into punches (${k.lines} lines in all, last ${k.lastAt ? localTime(Date.parse(k.lastAt)) : '-'}: ${k.lastReason ?? '-'}${dropped}); they are kept raw in the journal: ${k.table === 'rtlog' ? `if they are passes, add their event code to punchEvents of ${t.name}, reload,` : 'update the terminal firmware or punchgate,'} then run punchgate terminals reparse ${t.name}`,
      );
    }
  }
  return out;
}
