import type { Database, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { deviceIdentity } from '../punch.js';
import { printable } from '../util/terminal-text.js';
import type { DeliveryRecord, SourceStateEntry, SourceStateStore, TerminalRecord } from './types.js';
import type { WriteGate } from './write-gate.js';

/** Applied to text from outside (terminal strings, HRMS messages) before it is stored. */
export type Scrub = (text: string) => string;

/**
 * `scrub` for one batch's answers: each distinct message scrubbed once (an answer repeats one
 * message for a thousand punches, and scrubbing looks for every form of every secret).
 */
export function scrubEachOnce(scrub: Scrub | undefined): Scrub {
  if (!scrub) return (t) => t;
  const done = new Map<string, string>();
  return (t) => {
    let s = done.get(t);
    if (s === undefined) done.set(t, (s = scrub(t)));
    return s;
  };
}

type Row = Record<string, unknown>;

const TERMINAL_COLUMNS: Record<keyof Omit<TerminalRecord, 'name'>, string> = {
  serial: 'serial',
  previousSerial: 'previous_serial',
  serialChangedAt: 'serial_changed_at',
  online: 'online',
  lastPollAt: 'last_poll_at',
  lastSuccessAt: 'last_success_at',
  offlineSince: 'offline_since',
  lastError: 'last_error',
  lastErrorFix: 'last_error_fix',
  skewSeconds: 'skew_seconds',
  records: 'records',
  users: 'users',
  firmware: 'firmware',
  readUpTo: 'read_up_to',
};

/** Fields that carry text a terminal sent (or an error quoting it). */
const TERMINAL_TEXT: readonly (keyof TerminalRecord)[] = [
  'serial',
  'previousSerial',
  'lastError',
  'lastErrorFix',
  'firmware',
];
/** Longest error or firmware text kept (a device's answer quoted in an error is cut here). */
const MAX_TERMINAL_TEXT = 500;

/**
 * The door of what a terminal reports into its ledger: a serial number under the identity its
 * punches are kept under (deviceIdentity: a bounded stand-in for one that breaks the text rule),
 * other texts cut at MAX_TERMINAL_TEXT characters (they are escaped where shown).
 */
function deviceTexts<T extends Patch<TerminalRecord>>(patch: T): T {
  const out = { ...patch };
  for (const f of ['serial', 'previousSerial'] as const)
    if (typeof out[f] === 'string') out[f] = deviceIdentity(out[f]);
  for (const f of ['lastError', 'lastErrorFix'] as const) {
    const v = out[f];
    if (typeof v === 'string' && v.length > MAX_TERMINAL_TEXT) out[f] = `${v.slice(0, MAX_TERMINAL_TEXT)}...`;
  }
  // The device's own words (model and firmware): kept as they are shown, escaped and bounded, so
  // that no reader (status --json, the page, a metrics label, a script) meets a raw control.
  if (typeof out.firmware === 'string') out.firmware = printable(out.firmware, MAX_TERMINAL_TEXT);
  return out;
}

function toTerminal(r: Row): TerminalRecord {
  return {
    name: r.name as string,
    serial: r.serial as string,
    previousSerial: r.previous_serial as string,
    serialChangedAt: r.serial_changed_at as number | null,
    online: r.online === 1,
    lastPollAt: r.last_poll_at as number | null,
    lastSuccessAt: r.last_success_at as number | null,
    offlineSince: r.offline_since as number | null,
    lastError: r.last_error as string | null,
    lastErrorFix: (r.last_error_fix as string | null | undefined) ?? null,
    skewSeconds: r.skew_seconds as number | null,
    records: r.records as number | null,
    users: r.users as number | null,
    firmware: r.firmware as string | null,
    readUpTo: (r.read_up_to as string | null | undefined) ?? null,
  };
}

type Patch<T> = Partial<Omit<T, 'name'>>;

function scrubbed<T>(patch: T, fields: readonly string[], scrub: Scrub | undefined): T {
  if (!scrub) return patch;
  const out = { ...patch } as Record<string, unknown>;
  for (const f of fields) if (typeof out[f] === 'string') out[f] = scrub(out[f]);
  return out as T;
}

/**
 * Runs a write of a status record (a terminal's last poll, delivery's last result) committed
 * without a disk sync of its own: it is what a terminal or the HRMS last said, not a punch, and
 * is said again at the next poll or batch. Lost in a power cut, the record is a little older;
 * the WAL is written in order, so the next punch's synced commit makes it durable with it. With
 * 200 terminals polled at the minute, a sync per ledger write held the event loop for seconds.
 */
function unsynced(db: Database, fn: () => void): void {
  if (db.inTransaction) return fn();
  const was = db.pragma('synchronous', { simple: true }) as number;
  // FULL is 2 (open-db.ts); NORMAL (1) in WAL mode commits without a sync, OFF (0) stays OFF.
  if (was < 2) return fn();
  db.pragma('synchronous = NORMAL');
  try {
    fn();
  } finally {
    db.pragma(`synchronous = ${was}`);
  }
}

function sqlValue(v: unknown): unknown {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

/** Whether a terminal answered at its last contact, and when it last did (a terminal record's two facts /metrics shows). */
export interface TerminalContact {
  name: string;
  online: boolean;
  lastSuccessAt: number | null;
}

/**
 * What each terminal last reported; survives restarts and is read by one-shot commands.
 * An update that meets a busy journal is kept (merged with later ones) and written when the
 * journal is free; until then `get` and `list` show it as if written.
 */
export class TerminalStateStore {
  private readonly kept = new Map<string, Patch<TerminalRecord>>();
  /** contacts()'s statement, made at its first scrape. */
  private contactsQuery: Statement | undefined;

  constructor(
    private readonly db: Database,
    private readonly gate: WriteGate,
    private readonly scrub?: Scrub,
  ) {}

  get(name: string): TerminalRecord | undefined {
    const r = this.db.prepare('SELECT * FROM terminals WHERE name = ?').get(name) as Row | undefined;
    return this.withKept(name, r ? toTerminal(r) : undefined);
  }

  list(): TerminalRecord[] {
    const rows = (this.db.prepare('SELECT * FROM terminals ORDER BY name').all() as Row[]).map(toTerminal);
    const names = new Set(rows.map((r) => r.name));
    const out = rows.map((r) => this.withKept(r.name, r)!);
    for (const name of this.kept.keys()) if (!names.has(name)) out.push(this.withKept(name, undefined)!);
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Each terminal's last contact (answered or not, and when it last did), as list() shows it but
   * with one narrow query: /metrics reads it at each scrape, for 200 terminals (issue 35). What is
   * kept while the journal is busy shows as written, as everywhere else.
   */
  contacts(): TerminalContact[] {
    this.contactsQuery ??= this.db.prepare(`SELECT name, online, last_success_at AS lastSuccessAt FROM terminals`);
    const rows = (
      this.contactsQuery.all() as {
        name: string;
        online: number;
        lastSuccessAt: number | null;
      }[]
    ).map((r) => ({ name: r.name, online: r.online === 1, lastSuccessAt: r.lastSuccessAt }));
    if (this.kept.size === 0) return rows;
    const byName = new Map(rows.map((r) => [r.name, r]));
    for (const [name, patch] of this.kept) {
      const stored = byName.get(name) ?? { name, online: false, lastSuccessAt: null };
      byName.set(name, {
        name,
        online: patch.online ?? stored.online,
        lastSuccessAt: patch.lastSuccessAt !== undefined ? patch.lastSuccessAt : stored.lastSuccessAt,
      });
    }
    return [...byName.values()];
  }

  update(name: string, patch: Patch<TerminalRecord>): TerminalRecord {
    // An error and its fix go together: a new error without a fix leaves none behind.
    if (patch.lastError !== undefined && patch.lastErrorFix === undefined) patch = { ...patch, lastErrorFix: null };
    const clean = scrubbed(
      deviceTexts(
        Object.fromEntries(
          Object.entries(patch).filter(([k, v]) => v !== undefined && k in TERMINAL_COLUMNS),
        ) as Patch<TerminalRecord>,
      ),
      TERMINAL_TEXT,
      this.scrub,
    );
    this.kept.set(name, { ...this.kept.get(name), ...clean });
    this.gate.defer(`terminal:${name}`, () => this.write(name));
    return this.get(name)!;
  }

  remove(name: string): void {
    this.kept.delete(name);
    this.gate.attempt(() => this.db.prepare('DELETE FROM terminals WHERE name = ?').run(name));
  }

  /** Writes what is kept for `name` (the gate calls it now, or later while the journal is busy). */
  private write(name: string): void {
    const patch = this.kept.get(name);
    if (!patch) return;
    const entries = Object.entries(patch);
    unsynced(this.db, () =>
      this.db
        .transaction(() => {
          this.db.prepare('INSERT OR IGNORE INTO terminals (name) VALUES (?)').run(name);
          if (entries.length > 0) {
            const sets = entries.map(([k]) => `${TERMINAL_COLUMNS[k as keyof typeof TERMINAL_COLUMNS]} = ?`).join(', ');
            this.db
              .prepare(`UPDATE terminals SET ${sets} WHERE name = ?`)
              .run(...entries.map(([, v]) => sqlValue(v)), name);
          }
        })
        .immediate(),
    );
    if (this.kept.get(name) === patch) this.kept.delete(name);
  }

  private withKept(name: string, stored: TerminalRecord | undefined): TerminalRecord | undefined {
    const patch = this.kept.get(name);
    if (!patch) return stored;
    return { ...(stored ?? emptyTerminal(name)), ...patch } as TerminalRecord;
  }
}

function emptyTerminal(name: string): TerminalRecord {
  return {
    name,
    serial: '',
    previousSerial: '',
    serialChangedAt: null,
    online: false,
    lastPollAt: null,
    lastSuccessAt: null,
    offlineSince: null,
    lastError: null,
    lastErrorFix: null,
    skewSeconds: null,
    records: null,
    users: null,
    firmware: null,
    readUpTo: null,
  };
}

const DELIVERY_COLUMNS: Record<keyof DeliveryRecord, string> = {
  auth: 'auth',
  authFailedSince: 'auth_failed_since',
  lastAttemptAt: 'last_attempt_at',
  lastSuccessAt: 'last_success_at',
  lastError: 'last_error',
  lastErrorAt: 'last_error_at',
  lastResult: 'last_result',
  failingSince: 'failing_since',
};

/** Delivery's last results and auth state (one row); an update that meets a busy journal is kept like a terminal's. */
export class DeliveryStateStore {
  private kept: Partial<DeliveryRecord> | undefined;

  constructor(
    private readonly db: Database,
    private readonly gate: WriteGate,
    private readonly scrub?: Scrub,
    /** A sink other than the default: its row of sink_state (sink-deliveries.ts); else delivery_state. */
    private readonly sink?: string,
  ) {}

  get(): DeliveryRecord {
    const r = (
      this.sink === undefined
        ? this.db.prepare('SELECT * FROM delivery_state WHERE id = 1').get()
        : (this.db.prepare('SELECT * FROM sink_state WHERE sink = ?').get(this.sink) ?? { auth: 'unknown' })
    ) as Row;
    return {
      auth: r.auth as DeliveryRecord['auth'],
      authFailedSince: r.auth_failed_since as number | null,
      lastAttemptAt: r.last_attempt_at as number | null,
      lastSuccessAt: r.last_success_at as number | null,
      lastError: r.last_error as string | null,
      lastErrorAt: r.last_error_at as number | null,
      lastResult: r.last_result as string | null,
      failingSince: (r.failing_since as number | null | undefined) ?? null,
      ...this.kept,
    };
  }

  update(patch: Partial<DeliveryRecord>): void {
    const clean = scrubbed(
      Object.fromEntries(Object.entries(patch).filter(([k, v]) => v !== undefined && k in DELIVERY_COLUMNS)),
      ['lastError', 'lastResult'],
      this.scrub,
    );
    if (Object.keys(clean).length === 0) return;
    this.kept = { ...this.kept, ...clean };
    this.gate.defer(this.sink === undefined ? 'delivery' : `delivery:${this.sink}`, () => this.write());
  }

  private write(): void {
    const patch = this.kept;
    if (!patch) return;
    const entries = Object.entries(patch);
    const sets = entries.map(([k]) => `${DELIVERY_COLUMNS[k as keyof DeliveryRecord]} = ?`).join(', ');
    unsynced(this.db, () => {
      if (this.sink === undefined)
        this.db.prepare(`UPDATE delivery_state SET ${sets} WHERE id = 1`).run(...entries.map(([, v]) => v));
      else
        this.db.transaction(() => {
          this.db.prepare(`INSERT INTO sink_state (sink) VALUES (?) ON CONFLICT DO NOTHING`).run(this.sink);
          this.db.prepare(`UPDATE sink_state SET ${sets} WHERE sink = ?`).run(...entries.map(([, v]) => v), this.sink);
        })();
    });
    if (this.kept === patch) this.kept = undefined;
  }
}

/** Per-terminal values sources keep between runs (table source_state). */
export class SourceStateTable implements SourceStateStore {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: Database) {
    this.getStmt = db.prepare('SELECT value FROM source_state WHERE terminal = ? AND key = ?');
    this.setStmt = db.prepare(`INSERT INTO source_state (terminal, key, value, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (terminal, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
  }

  get(terminal: string, key: string): string | undefined {
    return (this.getStmt.get(terminal, boundedKey(key)) as { value: string } | undefined)?.value;
  }

  /** Inside or outside a transaction (ingest calls it inside its own). */
  set(entry: SourceStateEntry, now = Date.now()): void {
    this.setStmt.run(entry.terminal, boundedKey(entry.key), entry.value, now);
  }
}

/** Longest key kept as it is: a key made from a device's text (`events:<serial>`) is bounded. */
const MAX_KEY = 128;

function boundedKey(key: string): string {
  return key.length <= MAX_KEY
    ? key
    : `${key.slice(0, 64)}~${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
