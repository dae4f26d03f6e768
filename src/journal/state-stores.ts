import type { Database } from 'better-sqlite3';
import type { DeliveryRecord, SourceStateEntry, SourceStateStore, TerminalRecord } from './types.js';

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
  skewSeconds: 'skew_seconds',
  records: 'records',
  users: 'users',
  firmware: 'firmware',
};

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
    skewSeconds: r.skew_seconds as number | null,
    records: r.records as number | null,
    users: r.users as number | null,
    firmware: r.firmware as string | null,
  };
}

function sqlValue(v: unknown): unknown {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

/** What each terminal last reported; survives restarts and is read by one-shot commands. */
export class TerminalStateStore {
  constructor(private readonly db: Database) {}

  get(name: string): TerminalRecord | undefined {
    const r = this.db.prepare('SELECT * FROM terminals WHERE name = ?').get(name) as Row | undefined;
    return r ? toTerminal(r) : undefined;
  }

  list(): TerminalRecord[] {
    return (this.db.prepare('SELECT * FROM terminals ORDER BY name').all() as Row[]).map(toTerminal);
  }

  update(name: string, patch: Partial<Omit<TerminalRecord, 'name'>>): TerminalRecord {
    const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && k in TERMINAL_COLUMNS);
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
      .immediate();
    return this.get(name)!;
  }

  remove(name: string): void {
    this.db.prepare('DELETE FROM terminals WHERE name = ?').run(name);
  }
}

const DELIVERY_COLUMNS: Record<keyof DeliveryRecord, string> = {
  auth: 'auth',
  authFailedSince: 'auth_failed_since',
  lastAttemptAt: 'last_attempt_at',
  lastSuccessAt: 'last_success_at',
  lastError: 'last_error',
  lastErrorAt: 'last_error_at',
  lastResult: 'last_result',
};

/** Delivery's last results and auth state (one row). */
export class DeliveryStateStore {
  constructor(private readonly db: Database) {}

  get(): DeliveryRecord {
    const r = this.db.prepare('SELECT * FROM delivery_state WHERE id = 1').get() as Row;
    return {
      auth: r.auth as DeliveryRecord['auth'],
      authFailedSince: r.auth_failed_since as number | null,
      lastAttemptAt: r.last_attempt_at as number | null,
      lastSuccessAt: r.last_success_at as number | null,
      lastError: r.last_error as string | null,
      lastErrorAt: r.last_error_at as number | null,
      lastResult: r.last_result as string | null,
    };
  }

  update(patch: Partial<DeliveryRecord>): void {
    const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && k in DELIVERY_COLUMNS);
    if (entries.length === 0) return;
    const sets = entries.map(([k]) => `${DELIVERY_COLUMNS[k as keyof DeliveryRecord]} = ?`).join(', ');
    this.db.prepare(`UPDATE delivery_state SET ${sets} WHERE id = 1`).run(...entries.map(([, v]) => v));
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
    return (this.getStmt.get(terminal, key) as { value: string } | undefined)?.value;
  }

  /** Inside or outside a transaction (ingest calls it inside its own). */
  set(entry: SourceStateEntry, now = Date.now()): void {
    this.setStmt.run(entry.terminal, entry.key, entry.value, now);
  }
}
