import type { Database } from 'better-sqlite3';
import { USER_BACKUPS_MIGRATION } from './user-backups.js';

/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version`
 * records how far a journal file has come. Never edit a released migration: add one.
 */
const MIGRATIONS: readonly string[] = [
  // 1: punches, terminal records and the delivery state.
  `
  CREATE TABLE punches (
    -- Never reused: prune always keeps the newest row, so max(id) never goes back.
    id               INTEGER PRIMARY KEY,
    terminal         TEXT    NOT NULL,
    device           TEXT    NOT NULL DEFAULT '',
    biometric_code   TEXT    NOT NULL,
    log_time         TEXT    NOT NULL,
    verify_type      INTEGER,
    punch_state      INTEGER,
    site             TEXT    NOT NULL,
    -- "<site>-<n>": fixed at insert, so it is the same on every resend.
    devicelog_id     TEXT    GENERATED ALWAYS AS (site || '-' || id) VIRTUAL,
    state            TEXT    NOT NULL CHECK (state IN ('pending','inflight','delivered','rejected','dead','quarantined')),
    -- While inflight: the state the punch was claimed from, to return to it on release.
    claimed_from     TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,
    first_rejected_at INTEGER,
    last_message     TEXT,
    duplicate        INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    delivered_at     INTEGER,
    -- Log time before code: a terminal's punches arrive in time order, so inserts stay local in the index.
    UNIQUE (terminal, device, log_time, biometric_code)
  );
  -- The delivery queue in log-time order; only rows that may still be sent are indexed.
  -- (No index on state: it would cost every insert, and the status counts once a minute.)
  CREATE INDEX punches_queue ON punches (log_time, id) WHERE state IN ('pending', 'rejected');
  CREATE INDEX punches_delivered_at ON punches (delivered_at) WHERE state = 'delivered';

  CREATE TABLE terminals (
    name              TEXT PRIMARY KEY,
    serial            TEXT NOT NULL DEFAULT '',
    previous_serial   TEXT NOT NULL DEFAULT '',
    serial_changed_at INTEGER,
    online            INTEGER NOT NULL DEFAULT 0,
    last_poll_at      INTEGER,
    last_success_at   INTEGER,
    offline_since     INTEGER,
    last_error        TEXT,
    skew_seconds      REAL,
    records           INTEGER,
    users             INTEGER,
    firmware          TEXT
  );

  CREATE TABLE delivery_state (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    auth              TEXT NOT NULL DEFAULT 'unknown',
    auth_failed_since INTEGER,
    last_attempt_at   INTEGER,
    last_success_at   INTEGER,
    last_error        TEXT,
    last_error_at     INTEGER,
    last_result       TEXT
  );
  INSERT INTO delivery_state (id) VALUES (1);
  `,
  // 2: users removed from terminals, with their fingerprint templates (issue 16, user-backups.ts).
  USER_BACKUPS_MIGRATION,
  // 3: what a source must remember between runs, per terminal (e.g. a Hikvision event cursor).
  // Written in the same transaction as the punches it describes, so it never runs ahead of them.
  `
  CREATE TABLE source_state (
    terminal   TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (terminal, key)
  ) WITHOUT ROWID;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema up to date. Refuses a journal written by a newer punchgate. */
export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `journal schema version ${current} is newer than this punchgate understands (${MIGRATIONS.length}): upgrade punchgate`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
