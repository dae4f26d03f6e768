import {
  NO_SERIAL,
  SPEAKS_TLS,
  REFUSALS_BEYOND,
  type PushContact,
  type PushJournal,
  type PushRefusal,
} from '../../journal/types.js';
import { elapsedMs, type Clock } from '../../util/clock.js';
import { STEP_THRESHOLD_MS } from '../../util/clock-steps.js';
import type { Logger } from '../../util/logger.js';
import type { DeviceInfo } from './device-info.js';
import type { PushTerminal } from './directory.js';
import { FlapLog } from './flap-log.js';
import { LogBudget } from './log-budget.js';
import { minutes } from '../poll-outcome.js';

/** Refused pushers waiting to be written at most (a flood of invented serials stays bounded). */
const MAX_PENDING_REFUSALS = 200;
/** A refused serial is logged at most this often (per serial and address). */
const REFUSAL_LOG_MS = 10 * 60_000;
/** A failing write of contacts is logged at most this often. */
const FLUSH_ERROR_LOG_MS = 60_000;
/** "Stopped calling" and "calls again" lines per push terminal at most, per window (flap-log.ts). */
const FLAP_LINES = 6;
const FLAP_WINDOW_MS = 60 * 60_000;

interface Contact {
  serial: string;
  lastContactAt: number;
  /**
   * The monotonic clock at that contact (null: a contact carried over a restart). Silence is
   * measured on it: a step of the box's wall clock is no time passing.
   */
  lastContactElapsed: number | null;
  address: string;
  online: boolean;
  offlineSince: number | null;
  pushVersion?: string;
  info: DeviceInfo;
  dirty: boolean;
  /** Went silent while its lines were held back (FlapLog): said at a later flush. */
  silenceUnsaid?: boolean;
}

/**
 * When each push terminal last made contact, and who was refused. Kept in memory and written
 * to the journal every few seconds in one transaction (not per request: 200 terminals polling
 * every 10 s would be 20 disk syncs a second for nothing).
 */
export class ContactBook {
  private readonly contacts = new Map<string, Contact>();
  private readonly refusals = new Map<string, PushRefusal>();
  private readonly refusalLogged = new Map<string, number>();
  /** Refusal lines in all (many invented serials must not flood the log). */
  private readonly refusalBudget = new LogBudget(20, 60_000);
  private lastFlushError = 0;
  /** A terminal going silent and calling again every few minutes must not flood the log. */
  private readonly flapLog = new FlapLog(FLAP_LINES, FLAP_WINDOW_MS);

  constructor(
    private readonly journal: PushJournal,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly offlineAfterMs: () => number,
  ) {}

  /** Carries the last contacts over a restart, so that "online" and "last contact" stay true. */
  load(): void {
    const now = this.clock.now();
    for (const r of this.journal.pushTerminals()) {
      if (r.lastContactAt === null) continue;
      // A contact dated after now: the box clock stepped back while punchgate was stopped. It was
      // before this start, by how much is unknown: said as now ("no call since" holds for it), its
      // silence counted from here on the monotonic clock. Kept as it was, it read as a call still
      // to come: online in the status, and never "stopped calling", for as long as the step.
      const ahead = r.lastContactAt > now;
      const lastContactAt = ahead ? now : r.lastContactAt;
      const online = now - lastContactAt <= this.offlineAfterMs();
      this.contacts.set(r.terminal, {
        serial: r.serial,
        lastContactAt,
        lastContactElapsed: ahead ? elapsedMs(this.clock) : null,
        address: r.address ?? '',
        online,
        offlineSince: online ? null : lastContactAt,
        pushVersion: r.pushVersion ?? undefined,
        info: {},
        dirty: ahead,
      });
    }
  }

  seen(t: PushTerminal, address: string, extra: { pushVersion?: string; info?: DeviceInfo } = {}): void {
    const prev = this.contacts.get(t.cfg.name);
    const silence = prev ? this.silenceMs(prev) : 0;
    this.contacts.set(t.cfg.name, {
      serial: t.cfg.serial,
      lastContactAt: this.clock.now(),
      lastContactElapsed: elapsedMs(this.clock),
      address,
      online: true,
      offlineSince: null,
      pushVersion: extra.pushVersion ?? prev?.pushVersion,
      info: { ...prev?.info, ...definedOnly(extra.info ?? {}) },
      dirty: true,
    });
    if (!prev || prev.online) return;
    // A silence never said is a change not logged too: the next line counts it.
    if (prev.silenceUnsaid) this.flapLog.held(t.cfg.name);
    const held = this.flapLog.take(t.cfg.name, elapsedMs(this.clock));
    if (held === undefined) return this.flapLog.held(t.cfg.name);
    this.logger.info(
      { terminal: t.cfg.name, address, ...heldField(held) },
      `terminal ${t.cfg.name} calls again (from ${address}) after ${minutes(silence)} of silence${heldWords(held)}`,
    );
  }

  /** Pending refusals of configured serials from outside their allowFrom (kept apart from unknown serials). */
  private addressRefusals(): number {
    let n = 0;
    for (const r of this.refusals.values()) if (r.reason === 'address') n++;
    return n;
  }

  /** How long `c` has been silent: on the monotonic clock when its contact was seen by this run. */
  private silenceMs(c: Contact): number {
    return c.lastContactElapsed !== null
      ? elapsedMs(this.clock) - c.lastContactElapsed
      : this.clock.now() - c.lastContactAt;
  }

  /**
   * A contact's time in the wall clock's terms of now: moved with a step of the box clock since it
   * was seen. The status and the journal judge silence by `now - lastContactAt`: a contact made
   * before a step back of an hour, kept as it was, was an hour ahead of the box, and a terminal
   * gone silent stayed online in the status for that hour while the log said it stopped calling.
   */
  private restate(c: Contact, now: number): void {
    if (c.lastContactElapsed === null) return;
    const delta = now - (elapsedMs(this.clock) - c.lastContactElapsed) - c.lastContactAt;
    if (Math.abs(delta) < STEP_THRESHOLD_MS) return;
    c.lastContactAt += delta;
    if (c.offlineSince !== null) c.offlineSince += delta;
    c.dirty = true;
  }

  lastContactAt(name: string): number | null {
    return this.contacts.get(name)?.lastContactAt ?? null;
  }

  /** `sent`: what a request without a usable serial gave as `SN=` (logged, cut short; never stored). */
  refused(
    serial: string,
    address: string,
    reason: PushRefusal['reason'],
    terminal: string | null,
    sent?: string,
  ): void {
    const now = this.clock.now();
    const key = `${serial.toUpperCase()} ${address}`;
    const room =
      reason === 'address'
        ? this.addressRefusals() < MAX_PENDING_REFUSALS
        : this.refusals.size - this.addressRefusals() < MAX_PENDING_REFUSALS;
    // Beyond the bound, counted in one row per reason (and serial): the counts stay whole.
    const row = this.refusals.has(key) || room ? { key, serial, address } : beyond(serial, reason);
    const r = this.refusals.get(row.key);
    if (r) {
      r.count++;
      r.lastSeenAt = now;
    } else {
      this.refusals.set(row.key, {
        serial: row.serial,
        address: row.address,
        reason,
        terminal,
        firstSeenAt: now,
        lastSeenAt: now,
        count: 1,
      });
    }
    // Each serial and address once in a while, and few lines in all.
    const logged = this.refusalLogged.get(key);
    if (logged !== undefined && now - logged < REFUSAL_LOG_MS) return;
    const held = this.refusalBudget.take(now);
    if (held === undefined) return;
    if (this.refusalLogged.size >= MAX_PENDING_REFUSALS) this.refusalLogged.clear();
    this.refusalLogged.set(key, now);
    const extra = held > 0 ? { refusalsNotLogged: held } : {};
    if (serial === SPEAKS_TLS)
      this.logger.warn(
        { address, ...extra },
        `a device at ${address} speaks HTTPS (TLS) to the push receiver, which speaks plain HTTP: nothing it sends can be read (answered 400); if it is a terminal, turn HTTPS off in its Cloud Server Setting (ADMS) menu (a Hikvision terminal posting by HTTP Listening: its listening host's protocol HTTP)`,
      );
    else if (serial === NO_SERIAL)
      this.logger.warn(
        { address, ...(sent ? { sent: sent.slice(0, 80) } : {}), ...extra },
        `a device at ${address} is pushing without a serial number (SN= ${sent ? 'is not a serial number' : 'missing'}): answered 400; if it is a terminal, check that nothing between it and this box (a proxy) drops the query string, and that its firmware sends SN=`,
      );
    else if (reason === 'unknown')
      this.logger.warn(
        { serial, address, ...extra },
        `terminal SN=${serial} is pushing but is not configured: add it to terminals (kind: adms, serial: ${serial}) to accept its punches`,
      );
    else
      this.logger.warn(
        { serial, address, terminal, ...extra },
        `terminal SN=${serial} (${terminal}) is pushing from ${address}, outside its allowFrom: refused`,
      );
  }

  /**
   * Marks terminals silent for longer than the offline limit, and writes what changed since the
   * last call. A journal that cannot be written now (busy) keeps it for the next call.
   */
  flush(): void {
    const now = this.clock.now();
    const limit = this.offlineAfterMs();
    const changed: [string, Contact][] = [];
    for (const [name, c] of this.contacts) {
      this.restate(c, now);
      const silence = this.silenceMs(c);
      if (c.online && silence > limit) {
        c.online = false;
        c.offlineSince = c.lastContactAt;
        c.dirty = true;
        c.silenceUnsaid = true;
      }
      // Said now, or at a later flush once its flap lines have room again (a real outage after
      // an hour of flapping still reaches the log, with its whole silence).
      if (!c.online && c.silenceUnsaid) {
        const held = this.flapLog.take(name, elapsedMs(this.clock));
        if (held !== undefined) {
          c.silenceUnsaid = false;
          this.logger.warn(
            { terminal: name, lastContactAt: new Date(c.lastContactAt).toISOString(), ...heldField(held) },
            `terminal ${name} has stopped calling (no contact for ${minutes(silence)}): check its power and network, and that its Cloud Server Setting names this box${heldWords(held)}`,
          );
        }
      }
      if (c.dirty) changed.push([name, c]);
    }
    const refusals = [...this.refusals.values()];
    try {
      // Refusals first: a contact written after them forgives what came before it.
      this.journal.recordRefusals(refusals);
      this.refusals.clear();
      this.journal.recordContacts(changed.map(([name, c]) => toRecord(name, c)));
      for (const [, c] of changed) c.dirty = false;
    } catch (e) {
      if (now - this.lastFlushError >= FLUSH_ERROR_LOG_MS) {
        this.lastFlushError = now;
        this.logger.warn(
          { err: e instanceof Error ? e.message : String(e) },
          'could not record push terminal contacts (journal busy?): kept for the next try',
        );
      }
    }
  }
}

function heldField(held: number): { changesNotLogged?: number } {
  return held > 0 ? { changesNotLogged: held } : {};
}

/** What a flap line adds when changes before it were held back (FlapLog). */
function heldWords(held: number): string {
  return held > 0
    ? ` (${held} more changes between silent and calling since the last such line were not logged: at most ${FLAP_LINES} such lines an hour per terminal; if it keeps going silent, check that its Delay and network let it call within the offline limit)`
    : '';
}

/** The row that sums the refusals beyond the bound: all unknown serials, or one configured serial's addresses. */
function beyond(serial: string, reason: PushRefusal['reason']): { key: string; serial: string; address: string } {
  const s = reason === 'unknown' ? REFUSALS_BEYOND : serial;
  return { key: `${s.toUpperCase()} ${REFUSALS_BEYOND}`, serial: s, address: REFUSALS_BEYOND };
}

function definedOnly(info: DeviceInfo): DeviceInfo {
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as DeviceInfo;
}

function toRecord(name: string, c: Contact): PushContact {
  return {
    terminal: name,
    serial: c.serial,
    lastContactAt: c.lastContactAt,
    address: c.address,
    online: c.online,
    offlineSince: c.offlineSince,
    pushVersion: c.pushVersion,
    firmware: c.info.firmware,
    records: c.info.records,
    users: c.info.users,
  };
}
