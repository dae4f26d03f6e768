import { pushOfflineAfterMs } from '../config/adms.js';
import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { PushStore } from '../journal/push-store.js';
import { NO_SERIAL, REFUSALS_BEYOND, SPEAKS_TLS, type PushRegistration } from '../journal/types.js';
import { ALERT, type Alert } from './alert-words.js';
import { localTime } from '../util/local-time.js';
import { shownFacts } from '../sources/adms/security.js';
import { otherAddressesOf } from '../sources/adms/trust-gate.js';
import { pushZoneOf, zoneIsStale } from './push-zone.js';
import { nearMiss } from '../config/near-miss.js';
import type {
  PushDeviceFacts,
  PushKeptStatus,
  PushRefusalStatus,
  PushZoneStatus,
  StatusReport,
  TerminalStatus,
} from './types.js';

/** Refused pushers seen this recently are shown. */
const REFUSALS_SHOWN_MS = 24 * 3_600_000;

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/**
 * Push terminals (kind adms) in the status: online means a contact within a few Delay periods,
 * judged now (the daemon may have stopped since it last wrote), and what the receiver saw.
 * `startedAt`: when the running punchgate run started (null: not known, or not running); a
 * terminal that never called is waiting for its first call, not a fault, until its interval passed since.
 */
export function addPushStatus(
  report: StatusReport,
  journal: Journal,
  config: Config,
  now: number,
  startedAt: number | null = null,
): void {
  const push = config.terminals.filter((t) => t.kind === 'adms');
  if (push.length === 0 && !config.adms) return;
  const store = new PushStore(journal.db, journal, { now: () => now });
  const records = new Map(store.pushTerminals().map((r) => [r.terminal, r]));
  const registrations = store.registrations();
  const kept = store.keptCounts();
  const events = store.pushEvents();
  const limit = pushOfflineAfterMs(config.adms);
  const known = new Set(push.map((t) => t.serial.toUpperCase()));
  report.pushRefusals = store
    .refusals(now - REFUSALS_SHOWN_MS)
    .filter((r) => r.reason === 'address' || !known.has(r.serial.toUpperCase()))
    .map((r): PushRefusalStatus => ({
      ...r,
      firstSeenAt: iso(r.firstSeenAt)!,
      lastSeenAt: iso(r.lastSeenAt)!,
    }));
  // A serial pushing that is nearly this terminal's: most likely it, its serial mistyped in the config.
  const callsAsNear = (serial: string) =>
    report.pushRefusals!.find(
      (r) =>
        r.reason === 'unknown' &&
        r.serial !== NO_SERIAL &&
        r.serial !== SPEAKS_TLS &&
        nearMiss(r.serial, [serial]) !== undefined,
    );
  for (const t of report.terminals) {
    const cfg = push.find((p) => p.name === t.name);
    if (!cfg) continue;
    const r = records.get(t.name);
    const sameDevice = r !== undefined && r.serial.toUpperCase() === cfg.serial.toUpperCase();
    const last = sameDevice ? r.lastContactAt : null;
    const online = last !== null && now - last <= limit;
    // Told another offset than today's and it did not read its options again when asked (push-zone.ts).
    const zone = sameDevice ? pushZoneOf(store, cfg, now) : null;
    const staleZone = zone && zoneIsStale(zone, now) ? ALERT.pushZoneStale(cfg.name, zone) : null;
    // Its line said "check its power and network" beside the alert naming the typo (a trial).
    const near = last === null ? callsAsNear(cfg.serial) : undefined;
    Object.assign(t, {
      serial: cfg.serial,
      online,
      lastPollAt: iso(last),
      lastSuccessAt: iso(last),
      offlineSince: online ? null : iso(last),
      problem: online
        ? staleZone && { cause: staleZone.cause, fix: staleZone.fix }
        : near
          ? {
              cause: `it has not called this box as ${cfg.serial}, but SN=${near.serial} calls from ${near.address} (nearly the same: a typo?)`,
              fix: `if that is this terminal, correct its serial in the config to ${near.serial} (System Info on the terminal shows it), then reload`,
            }
          : last === null && startedAt !== null && now - startedAt < limit
            ? {
                cause: `waiting for its first call (punchgate run started at ${localTime(startedAt)})`,
                fix: `nothing to do yet: it should call by ${localTime(startedAt + limit)}`,
                waiting: true as const,
              }
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
        ...pushDetails(cfg.name, cfg.serial, registrations, kept, events),
        ...(zone ? { zone } : {}),
      },
    } satisfies Partial<TerminalStatus>);
    if (t.push?.device?.firmware) t.firmware = t.push.device.firmware;
  }
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
        droppedOld: k.droppedOld,
        reparsed: k.reparsed,
        lastAt: iso(k.lastAt),
        lastReason: k.lastReason,
      })),
    notPunches: events
      .filter((e) => e.terminal === name)
      .map((e) => ({ table: e.table, code: e.code, count: e.count })),
    trustedAddress: reg?.trustedAddress ?? null,
    // A sighting from before the trust last moved (to that very address, say) is history, not news.
    otherAddress: reg ? otherSightingOf(reg) : null,
  };
}

/**
 * The other devices seen sending with a terminal's serial since it was last trusted, as the status
 * and `punchgate check` show them; null: none. A sighting from before the trust last moved (to
 * that very address, say) is history, not news.
 */
export function otherSightingOf(
  reg: Pick<PushRegistration, 'otherAddress' | 'otherCount' | 'otherLastAt' | 'trustedAddress' | 'trustedAt'>,
): NonNullable<NonNullable<TerminalStatus['push']>['otherAddress']> | null {
  if (!reg.otherAddress || reg.otherAddress === reg.trustedAddress || (reg.otherLastAt ?? 0) <= (reg.trustedAt ?? 0))
    return null;
  const { addresses, more } = otherAddressesOf(reg.otherAddress);
  return {
    address: addresses[0] ?? reg.otherAddress,
    addresses,
    more,
    count: reg.otherCount,
    lastAt: iso(reg.otherLastAt),
  };
}

/** Unknown serials alerted one by one up to this many; more are summarised in one alert. */
const UNKNOWN_LISTED = 3;

/** Kept uploads this recent, or still held, raise an alert. */
const KEPT_ALERT_MS = 24 * 3_600_000;

/** A refusal alert, with the serial it is about (null: the summary of many unknown serials). */
export interface RefusalAlert {
  serial: string | null;
  alert: Alert;
}

/**
 * The alerts of the refused pushers, as the status and `punchgate check` both say them: each
 * serial pushing from outside its allowFrom is evidence of its own, one alert per serial (one
 * address named, several summarised: a spoof from many addresses is one alert); unknown serials
 * are one alert each for a few, one summary for many, so a device inventing serials cannot flood
 * the alerts (nor `check`, which listed each of the 200 kept serials and addresses on a line).
 */
export function refusalAlerts(
  refusals: readonly PushRefusalStatus[],
  stopped = false,
  /** The push terminals of the config (name, serial): an unknown serial nearly one of theirs is named with it. */
  configured: readonly { name: string; serial: string }[] = [],
): RefusalAlert[] {
  const out: RefusalAlert[] = [];
  const outside = new Map<string, PushRefusalStatus[]>();
  for (const r of refusals.filter((x) => x.reason === 'address'))
    outside.set(r.serial.toUpperCase(), [...(outside.get(r.serial.toUpperCase()) ?? []), r]);
  // A row beyond the kept bound (REFUSALS_BEYOND) sums many: always said in the summary's words.
  const many = (rows: readonly PushRefusalStatus[]) =>
    rows.some((r) => r.serial === REFUSALS_BEYOND || r.address === REFUSALS_BEYOND);
  for (const rows of outside.values())
    out.push({
      serial: rows[0]!.serial,
      alert:
        rows.length === 1 && !many(rows)
          ? ALERT.pushOutsideAllowFrom(rows[0]!, stopped)
          : ALERT.pushOutsideAllowFromMany(rows, stopped),
    });
  const unknown = refusals.filter((x) => x.reason === 'unknown');
  if (unknown.length <= UNKNOWN_LISTED && !many(unknown))
    for (const r of unknown)
      out.push({
        serial: r.serial,
        alert:
          r.serial === NO_SERIAL
            ? ALERT.pushNoSerial(r, stopped)
            : r.serial === SPEAKS_TLS
              ? ALERT.pushSpeaksTls(r, stopped)
              : ALERT.pushUnknownSerial(r, stopped, nearSerial(r.serial, configured)),
      });
  else out.push({ serial: null, alert: ALERT.pushUnknownSerials(unknown, stopped) });
  return out;
}

/** The configured push terminal whose serial is a near miss of `serial` (one or two characters off), if one. */
function nearSerial(
  serial: string,
  configured: readonly { name: string; serial: string }[],
): { name: string; serial: string } | undefined {
  const meant = nearMiss(
    serial,
    configured.map((t) => t.serial),
  );
  return meant === undefined ? undefined : configured.find((t) => t.serial === meant);
}

/**
 * Alerts of push terminals: refused serials, uploads kept raw (an unknown table, lines that could
 * not be read, events not known as punches). Silence is the general offline alert.
 */
export function pushAlerts(report: StatusReport, now: number): Alert[] {
  // Read from the journal of a stopped daemon: nothing is pushing now; said in the past, with when.
  const stopped = report.daemon !== undefined && report.daemon !== null && !report.daemon.running;
  const configured = report.terminals.flatMap((t) => (t.push && t.serial ? [{ name: t.name, serial: t.serial }] : []));
  const out: Alert[] = refusalAlerts(report.pushRefusals ?? [], stopped, configured).map((r) => r.alert);
  for (const t of report.terminals) {
    const other = t.push?.otherAddress;
    if (other?.lastAt && now - Date.parse(other.lastAt) <= KEPT_ALERT_MS)
      out.push(ALERT.pushOtherAddress(t, { ...other, lastAt: other.lastAt }));
    out.push(...keptAlerts(t, t.push?.kept ?? [], now));
    out.push(...zoneAlerts(t.name, t.push?.zone, now));
  }
  return out;
}

/** The stale-zone alert of one push terminal, as the status and `punchgate check` both say it. */
export function zoneAlerts(name: string, zone: PushZoneStatus | null | undefined, now: number): Alert[] {
  return zone && zoneIsStale(zone, now) ? [ALERT.pushZoneStale(name, zone)] : [];
}

/**
 * The alerts of one push terminal's uploads kept raw: while any is held, or, when some were
 * dropped, one came in the last day. The one rule of the status and of `punchgate check` (check
 * passed while the status alerted). Uploads that are no longer held and of which none was dropped
 * were all read again by `punchgate terminals reparse`: nothing is missing and nothing is to do
 * (the alert said "all 0 were dropped" and sent the admin to raise adms.keptUploads for a day).
 */
export function keptAlerts(t: Pick<TerminalStatus, 'name'>, kept: readonly PushKeptStatus[], now: number): Alert[] {
  return kept
    .filter((k) => k.held > 0 || (k.dropped > 0 && k.lastAt !== null && now - Date.parse(k.lastAt) <= KEPT_ALERT_MS))
    .map((k) => ALERT.pushKept(t as TerminalStatus, k));
}
