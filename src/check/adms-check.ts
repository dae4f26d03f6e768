import { existsSync } from 'node:fs';
import { admsListenAddress, pushOfflineAfterMs, type AdmsConfig } from '../config/adms.js';
import type { AdmsTerminalConfig } from '../config/terminals.js';
import { PushStore } from '../journal/push-store.js';
import { Database } from '../journal/sqlite-driver.js';
import {
  NO_SERIAL,
  SPEAKS_TLS,
  type PushRefusal,
  type PushRegistration,
  type PushTerminalRecord,
  type TerminalRecord,
} from '../journal/types.js';
import { ALERT } from '../status/alert-words.js';
import { keptAlerts, otherSightingOf, refusalAlerts, zoneAlerts } from '../status/push.js';
import { pushZoneOf } from '../status/push-zone.js';
import type { ListenerStatus, PushZoneStatus, TerminalStatus } from '../status/types.js';
import { checkListener } from './listen-check.js';
import { pass, warn, type CheckResult } from './types.js';
import { foreignLinkToJournal } from '../journal/journal-file.js';

/** Refused pushers seen this recently are shown. */
export const REFUSALS_SHOWN_MS = 24 * 3_600_000;

/** What `punchgate run` last recorded about push terminals, read from the journal read-only. */
export function readPushState(
  journalPath: string,
  now: number,
  /** The configured push terminals: their zones are judged against today's offset. */
  configured: readonly AdmsTerminalConfig[] = [],
): {
  terminals: Map<string, PushTerminalRecord>;
  refusals: PushRefusal[];
  registrations: PushRegistration[];
  /** Uploads kept raw, per terminal and table (PushStore.keptCounts). */
  kept: ReturnType<PushStore['keptCounts']>;
  /** Per configured terminal: told another offset than today's (push-zone.ts). */
  zones: Map<string, PushZoneStatus>;
  /** The journal is there but this user cannot read it: what the receiver saw is unknown, not "nothing". */
  unreadable: boolean;
} {
  const empty = {
    terminals: new Map<string, PushTerminalRecord>(),
    refusals: [],
    registrations: [],
    kept: [],
    zones: new Map<string, PushZoneStatus>(),
    unreadable: false,
  };
  if (!existsSync(journalPath) || foreignLinkToJournal(journalPath)) return empty;
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 2000 });
    const store = new PushStore(db, readOnlySink, { now: () => now });
    return {
      terminals: new Map(store.pushTerminals().map((t) => [t.terminal, t])),
      refusals: store.refusals(now - REFUSALS_SHOWN_MS),
      registrations: store.registrations(),
      kept: store.keptCounts(),
      zones: zonesOf(store, configured, now),
      unreadable: false,
    };
  } catch (e) {
    // An older journal without the push tables has heard no push terminal; any other error (no
    // rights, not a database) leaves it unknown, and the journal check says why.
    return { ...empty, unreadable: !/no such table/i.test(e instanceof Error ? e.message : String(e)) };
  } finally {
    db?.close();
  }
}

function zonesOf(store: PushStore, configured: readonly AdmsTerminalConfig[], now: number) {
  const out = new Map<string, PushZoneStatus>();
  for (const t of configured) {
    const z = pushZoneOf(store, t, now);
    if (z) out.set(t.name, z);
  }
  return out;
}

const readOnlySink = {
  ingest(): never {
    throw new Error('read-only');
  },
};

const ago = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s ago` : `${Math.round(ms / 60_000)} min ago`);

/** The push terminal receiver's port (adms.listen): see checkListener. */
export function checkAdmsReceiver(
  adms: AdmsConfig,
  daemon: ListenerStatus | undefined,
  running: boolean,
): Promise<CheckResult> {
  const { host, port } = admsListenAddress(adms);
  return checkListener({ name: 'adms receiver', listener: 'push', listen: adms.listen, host, port, daemon, running });
}

/** A push terminal cannot be reached from here: what the receiver last saw of it tells how it is doing. */
export function checkAdmsTerminal(
  cfg: AdmsTerminalConfig,
  deps: {
    adms: AdmsConfig | undefined;
    ledger?: TerminalRecord;
    push?: PushTerminalRecord;
    registration?: PushRegistration;
    /** The journal could not be read (readPushState): nothing is known of the terminal's calls. */
    unreadable?: boolean;
    /** Its uploads kept raw (readPushState's `kept`, any terminal's: this one's are picked). */
    kept?: ReturnType<PushStore['keptCounts']>;
    /** Zones told other than today's (readPushState's `zones`, any terminal's: this one's is picked). */
    zones?: ReadonlyMap<string, PushZoneStatus>;
    now: number;
  },
): CheckResult {
  const result = checkAdmsContact(cfg, deps);
  if (result.status !== 'pass') return result;
  // Uploads answered OK but kept raw: the status alerts on them, so check says it in its words.
  const shown = (deps.kept ?? [])
    .filter((k) => k.terminal === cfg.name)
    .map((k) => ({ ...k, lastAt: k.lastAt === null ? null : new Date(k.lastAt).toISOString() }));
  const alerts = [
    ...keptAlerts({ name: cfg.name }, shown, deps.now),
    ...zoneAlerts(cfg.name, deps.zones?.get(cfg.name), deps.now),
  ];
  if (alerts.length === 0) return result;
  return warn(result.name, alerts.map((a) => a.cause).join('; '), alerts.map((a) => a.fix).join('; '));
}

/** What the receiver last saw of the terminal's calls. */
function checkAdmsContact(cfg: AdmsTerminalConfig, deps: Parameters<typeof checkAdmsTerminal>[1]): CheckResult {
  const name = `terminal ${cfg.name}`;
  if (deps.unreadable)
    return warn(
      name,
      `cannot tell whether the push terminal SN=${cfg.serial} has called: this user cannot read the journal`,
      'run the check as the service user: sudo -u punchgate punchgate check (the journal line says what keeps this user out)',
    );
  // Another device sending with its serial is news whatever the terminal's own state (the status's words).
  const other = deps.registration && otherSightingOf(deps.registration);
  if (other?.lastAt && deps.now - Date.parse(other.lastAt) <= REFUSALS_SHOWN_MS) {
    const shown = {
      name: cfg.name,
      serial: cfg.serial,
      push: { trustedAddress: deps.registration?.trustedAddress ?? null },
    };
    const a = ALERT.pushOtherAddress(shown as TerminalStatus, { ...other, lastAt: other.lastAt });
    return warn(name, a.cause, a.fix);
  }
  const last = deps.push?.lastContactAt ?? null;
  const listen = deps.adms?.listen ?? 'adms.listen';
  if (last === null || deps.push?.serial.toUpperCase() !== cfg.serial.toUpperCase()) {
    return warn(
      name,
      `no contact yet from the push terminal SN=${cfg.serial}`,
      `on the terminal, set the cloud server (Comm. > Cloud Server Setting) to this box's address and the port of ${listen}, HTTPS off; check the serial in the config against System Info`,
    );
  }
  const silent = deps.now - last;
  const facts = [
    `SN=${cfg.serial}`,
    `last contact ${ago(silent)} from ${deps.push?.address ?? '?'}`,
    deps.push?.lastUploadAt ? `last upload ${ago(deps.now - deps.push.lastUploadAt)}` : 'no upload yet',
    deps.ledger?.firmware ? `firmware ${deps.ledger.firmware}` : '',
  ].filter(Boolean);
  if (silent > pushOfflineAfterMs(deps.adms)) {
    return warn(
      name,
      `push terminal silent: ${facts.join(', ')}`,
      'check its power and network, and that it still points at this box (its punches wait on the terminal meanwhile)',
    );
  }
  return pass(name, facts.join(', '));
}

/**
 * Terminals refused by the receiver lately: not configured, or outside their allowFrom. Said as
 * the status says them (refusalAlerts): a serial spoofed from many addresses is one line, and
 * more than a few unknown serials are one summary, however many a device invents.
 */
export function checkPushRefusals(
  refusals: readonly PushRefusal[],
  configured: readonly AdmsTerminalConfig[],
  /** punchgate run is not running: what its journal says was pushing, said in the past. */
  stopped = false,
): CheckResult[] {
  const known = new Set(configured.map((t) => t.serial.toUpperCase()));
  const shown = refusals
    .filter((r) => r.reason === 'address' || !known.has(r.serial.toUpperCase()))
    .map((r) => ({ ...r, firstSeenAt: iso(r.firstSeenAt), lastSeenAt: iso(r.lastSeenAt) }));
  return refusalAlerts(shown, stopped, configured).map(({ serial, alert }) =>
    warn(
      serial === null
        ? 'unknown serials'
        : serial === NO_SERIAL
          ? 'push without SN='
          : serial === SPEAKS_TLS
            ? 'push over HTTPS'
            : `terminal SN=${serial}`,
      alert.cause,
      alert.fix,
    ),
  );
}

const iso = (ms: number) => new Date(ms).toISOString();
