import { KEPT_DROPPED_OLD_MIGRATION } from './kept-drops.js';
import type { Database } from 'better-sqlite3';
import { COMMAND_ADDRESS_MIGRATION } from './command-address.js';
import { PUNCH_REFUSALS_MIGRATION } from './history.js';
import { OWED_BY_TIME_MIGRATION } from './owed-by-time.js';
import { PUNCH_COUNTS_MIGRATION } from './punch-counts.js';
import { PUNCH_IDS_MIGRATION } from './punch-id.js';
import { PUSH_ZONES_MIGRATION } from './push-zones.js';
import { REFUSED_RECORDS_MIGRATION } from './refused-records.js';
import { RETENTION_MARKS_FROM_MIGRATION, RETENTION_MARKS_MIGRATION } from './retention-marks.js';
import { SHIFT_PROGRESS_MIGRATION } from './shift-progress.js';
import { SINK_DELIVERIES_MIGRATION } from './sink-deliveries.js';
import { rewriteStateChecks } from './state-check.js';
import { STATE_TERMS_MIGRATION } from './state-terms.js';
import { TERMINAL_DEVICES_MIGRATION } from './terminal-devices.js';
import { TERMINAL_DIRECTIONS_MIGRATION } from './terminal-directions.js';
import { TERMINAL_ZONES_MIGRATION } from './terminal-zones.js';
import { CARD_CODES_MIGRATION } from './unknown-cards.js';
import { notRoutedMigration } from './not-routed.js';
import { USER_BACKUP_CARDS_MIGRATION, USER_BACKUPS_MIGRATION } from './user-backups.js';

/**
 * One migration: SQL, or (for what SQL alone cannot say) code run on the connection, inside the
 * migration's transaction like the SQL.
 */
export type Migration = string | ((db: Database) => void);

/** Applies one migration (the caller holds the transaction). */
export function applyMigration(db: Database, m: Migration): void {
  if (typeof m === 'string') db.exec(m);
  else m(db);
}

/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version`
 * records how far a journal file has come. Never edit a released migration: add one.
 */
export const MIGRATIONS: readonly Migration[] = [
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
  // 3: a punch is known by its device's serial number where the terminal reports one, so a renamed
  //    terminal, or one device listed under two names, sends nothing twice; a claim names the
  //    process that holds it (claimed_by), so that only claims of a process that is gone are
  //    returned to the queue; a terminal remembers up to which time of its own clock its log was
  //    read (read_up_to), to tell punches recorded while its clock was behind.
  //    The punches table is rebuilt (SQLite cannot drop a table constraint). A punch journalled
  //    twice under two names of one device (a rename before this version) is kept once, the
  //    delivered copy first, else the first one; the other copies move to punches_superseded.
  `
  CREATE TABLE punches_v2 (
    id               INTEGER PRIMARY KEY,
    terminal         TEXT    NOT NULL,
    -- The device's serial number, '' when the terminal does not report one.
    device           TEXT    NOT NULL DEFAULT '',
    biometric_code   TEXT    NOT NULL,
    log_time         TEXT    NOT NULL,
    verify_type      INTEGER,
    punch_state      INTEGER,
    site             TEXT    NOT NULL,
    devicelog_id     TEXT    GENERATED ALWAYS AS (site || '-' || id) VIRTUAL,
    state            TEXT    NOT NULL CHECK (state IN ('pending','inflight','delivered','rejected','dead','quarantined')),
    claimed_from     TEXT,
    -- While inflight: the claim holder (see src/journal/claim-holder.ts).
    claimed_by       TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,
    first_rejected_at INTEGER,
    last_message     TEXT,
    duplicate        INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    delivered_at     INTEGER
  );
  -- The identity of a punch: the device's serial where known, else the terminal's name. Each row
  -- is in exactly one of the two, so an insert maintains one unique index, as before.
  CREATE UNIQUE INDEX punches_by_device ON punches_v2 (device, log_time, biometric_code) WHERE device <> '';
  CREATE UNIQUE INDEX punches_by_terminal ON punches_v2 (terminal, log_time, biometric_code) WHERE device = '';

  INSERT OR IGNORE INTO punches_v2 (id, terminal, device, biometric_code, log_time, verify_type, punch_state, site,
      state, claimed_from, claimed_by, attempts, next_attempt_at, first_rejected_at, last_message, duplicate,
      created_at, updated_at, delivered_at)
    SELECT id, terminal, device, biometric_code, log_time, verify_type, punch_state, site,
      CASE WHEN state = 'inflight' THEN coalesce(claimed_from, 'pending') ELSE state END, NULL, NULL,
      attempts, next_attempt_at, first_rejected_at, last_message, duplicate, created_at, updated_at, delivered_at
    FROM punches ORDER BY state <> 'delivered', id;

  CREATE TABLE punches_superseded AS
    SELECT p.*, k.id AS superseded_by FROM punches p
      JOIN punches_v2 k ON k.device = p.device AND k.log_time = p.log_time AND k.biometric_code = p.biometric_code
        AND k.device <> ''
    WHERE p.id NOT IN (SELECT id FROM punches_v2);

  DROP TABLE punches;
  ALTER TABLE punches_v2 RENAME TO punches;
  CREATE INDEX punches_queue ON punches (log_time, id) WHERE state IN ('pending', 'rejected');
  CREATE INDEX punches_delivered_at ON punches (delivered_at) WHERE state = 'delivered';
  -- Claims by holder and age: small (only inflight rows), for recovery and the status.
  CREATE INDEX punches_inflight ON punches (claimed_by, updated_at) WHERE state = 'inflight';

  ALTER TABLE terminals ADD COLUMN read_up_to TEXT;
  `,
  // 4: push terminals (ADMS): upload stamps, per-terminal state, the command queue, enrolled users,
  // and refused pushers (unknown serials, addresses outside allowFrom).
  `
  CREATE TABLE push_terminals (
    terminal          TEXT PRIMARY KEY,
    serial            TEXT NOT NULL DEFAULT '',
    last_contact_at   INTEGER,
    address           TEXT,
    push_version      TEXT,
    last_upload_at    INTEGER,
    uploads           INTEGER NOT NULL DEFAULT 0,
    -- Punches received in uploads (new, duplicates and quarantined together).
    received          INTEGER NOT NULL DEFAULT 0,
    malformed         INTEGER NOT NULL DEFAULT 0,
    last_malformed    TEXT,
    last_malformed_at INTEGER
  );

  -- The terminal's Stamp= per table, saved in the transaction that journals the upload it came with.
  CREATE TABLE push_stamps (
    terminal   TEXT    NOT NULL,
    serial     TEXT    NOT NULL,
    tbl        TEXT    NOT NULL,
    stamp      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (terminal, serial, tbl)
  );

  CREATE TABLE terminal_commands (
    -- The command id sent to the terminal (C:<id>:...).
    id          INTEGER PRIMARY KEY,
    terminal    TEXT    NOT NULL,
    command     TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('queued', 'sent', 'done', 'failed')),
    created_at  INTEGER NOT NULL,
    sent_at     INTEGER,
    sent_count  INTEGER NOT NULL DEFAULT 0,
    done_at     INTEGER,
    return_code INTEGER,
    result      TEXT
  );
  CREATE INDEX terminal_commands_open ON terminal_commands (terminal, id) WHERE state IN ('queued', 'sent');
  CREATE INDEX terminal_commands_terminal ON terminal_commands (terminal, id);

  -- Users enrolled on a push terminal, as it reported them (never passwords or biometric templates).
  CREATE TABLE terminal_users (
    terminal   TEXT    NOT NULL,
    serial     TEXT    NOT NULL,
    pin        TEXT    NOT NULL,
    name       TEXT    NOT NULL DEFAULT '',
    card       TEXT    NOT NULL DEFAULT '',
    privilege  INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (terminal, serial, pin)
  );

  CREATE TABLE push_refusals (
    serial        TEXT    NOT NULL,
    address       TEXT    NOT NULL,
    -- 'unknown': no terminal has this serial; 'address': outside the terminal's allowFrom.
    reason        TEXT    NOT NULL CHECK (reason IN ('unknown', 'address')),
    terminal      TEXT,
    first_seen_at INTEGER NOT NULL,
    last_seen_at  INTEGER NOT NULL,
    count         INTEGER NOT NULL,
    PRIMARY KEY (serial, address)
  );
  `,
  // 5: what a source must remember between runs, per terminal (e.g. a Hikvision event cursor).
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
  // 6: each refused attempt at a punch with the HRMS's answer, for `punches --history` (history.ts).
  PUNCH_REFUSALS_MIGRATION,
  // 7: push terminals that speak ZKTeco's Security PUSH (issue 22): the registration each one made
  //    (its RegistryCode, session and the device facts it sent); uploads answered OK that were not
  //    turned into punches or known records, kept raw and bounded (push_kept), with counts per
  //    terminal and table that outlive the bound; and counts of records read but not punches
  //    (door events, refusals, door states, photos) per terminal, table and code.
  `
  CREATE TABLE push_registry (
    terminal      TEXT    NOT NULL,
    serial        TEXT    NOT NULL,
    -- 'attendance' (ATTLOG) or 'security' (rtlog), as the device told.
    protocol      TEXT    NOT NULL CHECK (protocol IN ('attendance', 'security')),
    registry_code TEXT,
    session_id    TEXT,
    -- JSON object of the facts it sent (model, firmware, capacities), secrets left out.
    facts         TEXT,
    registered_at INTEGER,
    -- Trust on first use (issue 23): the address this serial pushes from, and the last other
    -- address seen with its serial (a device using its serial: its requests change nothing).
    trusted_address TEXT,
    trusted_at      INTEGER,
    other_address   TEXT,
    other_count     INTEGER NOT NULL DEFAULT 0,
    other_last_at   INTEGER,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (terminal, serial)
  );

  CREATE TABLE push_kept (
    id          INTEGER PRIMARY KEY,
    terminal    TEXT    NOT NULL,
    serial      TEXT    NOT NULL,
    tbl         TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    received_at INTEGER NOT NULL,
    lines       INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    body        TEXT    NOT NULL
  );
  CREATE INDEX push_kept_terminal ON push_kept (terminal, id);
  CREATE INDEX push_kept_age ON push_kept (received_at);

  CREATE TABLE push_kept_counts (
    terminal    TEXT    NOT NULL,
    tbl         TEXT    NOT NULL,
    uploads     INTEGER NOT NULL DEFAULT 0,
    lines       INTEGER NOT NULL DEFAULT 0,
    -- Kept uploads dropped to stay within the bounds (oldest first), and turned into punches later.
    dropped     INTEGER NOT NULL DEFAULT 0,
    reparsed    INTEGER NOT NULL DEFAULT 0,
    last_at     INTEGER,
    last_reason TEXT,
    PRIMARY KEY (terminal, tbl)
  ) WITHOUT ROWID;

  CREATE TABLE push_events (
    terminal TEXT    NOT NULL,
    tbl      TEXT    NOT NULL,
    code     TEXT    NOT NULL,
    count    INTEGER NOT NULL,
    last_at  INTEGER NOT NULL,
    PRIMARY KEY (terminal, tbl, code)
  ) WITHOUT ROWID;
  `,
  // 8: devicelogIds that never repeat for a site: punches journalled from now on are sent as
  //    "<site>-<hash of the punch's identity>" (punch-id.ts), the same on any box that reads the
  //    punch; rows already journalled keep "<site>-<row id>", the id they may have been sent with.
  PUNCH_IDS_MIGRATION,
  // 9: what the status tells a site admin (issue 24): the fix that goes with a terminal's last
  //    error, since when delivery has been failing (the alert after delivery.alertAfterMinutes),
  //    and figures kept per hour for the status page's charts (hourly-stats.ts).
  `
  ALTER TABLE terminals ADD COLUMN last_error_fix TEXT;
  ALTER TABLE delivery_state ADD COLUMN failing_since INTEGER;
  CREATE TABLE hourly_stats (
    -- The hour's start (epoch ms, a whole UTC hour) and what is counted: see hourly-stats.ts.
    hour  INTEGER NOT NULL,
    name  TEXT    NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (hour, name)
  ) WITHOUT ROWID;
  `,
  // 10: records the journal refused at its door (a code against the text rule), per terminal (refused-records.ts).
  REFUSED_RECORDS_MIGRATION,
  // 11: one identity for a punch whatever its route: the device each terminal is known to be, and
  //     the id a punch filed by its terminal's name was sent with (terminal-devices.ts, issue 30).
  TERMINAL_DEVICES_MIGRATION,
  // 12: the address a terminal command was handed to: only that address settles it (command-address.ts).
  COMMAND_ADDRESS_MIGRATION,
  // 13: punches counted per terminal and state (punch_counts), kept by the writes that move them,
  //     and partial indexes for the alerts, so no status figure reads the whole table (punch-counts.ts).
  PUNCH_COUNTS_MIGRATION,
  // 14: each punch delivered to each of its sinks (issue 32): the state of every sink but the
  //     default one, whose state stays in punches (sink-deliveries.ts).
  SINK_DELIVERIES_MIGRATION,
  // 15: partial indexes of the punches each sink still owes, by terminal: the Frappe shift sync's
  //     query (shift-progress.ts) costs what is waiting, never the delivered history.
  SHIFT_PROGRESS_MIGRATION,
  // 16: the partial indexes whose WHERE listed three states made again with comparisons joined by
  //     OR (same rows): SQLite built a temporary B-tree of such a list for every punch inserted or
  //     moved (state-terms.ts).
  STATE_TERMS_MIGRATION,
  // 17: the indexes of what each sink owes keyed by log time first, not terminal: a batch spread
  //     over 200 terminals touched 200 of their pages (owed-by-time.ts, issue 35).
  OWED_BY_TIME_MIGRATION,
  // 18: the tables' CHECK on a punch's state made comparisons joined by OR, like the indexes of 16:
  //     SQLite built a temporary B-tree of the list for every punch inserted or moved (state-check.ts).
  rewriteStateChecks,
  // 19: what the retention forgot, per device: a terminal's old log read again after its delivered
  //     punches were deleted no longer journals them as new (retention-marks.ts).
  RETENTION_MARKS_MIGRATION,
  // 20: ...and from how far back: a punch dated before every deleted one (a clock reset to 2000)
  //     was never journalled, so it is not one of them (retention-marks.ts).
  RETENTION_MARKS_FROM_MIGRATION,
  // 21: a removed user's backup keeps every card, as the terminal spells them (user-backups.ts).
  USER_BACKUP_CARDS_MIGRATION,
  // 22: the UTC offset each push terminal was told, and the offset a CHECK was queued for: a
  //     terminal told its zone before a DST change is asked to read its options again (push-zones.ts).
  PUSH_ZONES_MIGRATION,
  // 23: every punch of an unknown badge card by the time it was journalled, delivered ones too: an
  //     HRMS that takes any code took them and the status said nothing (unknown-cards.ts).
  CARD_CODES_MIGRATION,
  // 24: punches of a terminal whose sinks: leaves the default sink out get a state of their own,
  //     not_routed, instead of counting as delivered to a sink that never received them (not-routed.ts).
  notRoutedMigration,
  // 25: kept push uploads dropped for their age counted apart from those dropped for room: the
  //     status said both were dropped "to stay within adms.keptUploads" (kept-drops.ts).
  KEPT_DROPPED_OLD_MIGRATION,
  // 26: the zone each configured terminal had: a terminal taken out of the config keeps it for its
  //     punches still waiting, not the box's (terminal-zones.ts).
  TERMINAL_ZONES_MIGRATION,
  // 27: ...and the direction setting it had: its waiting punches no longer go out with the device's
  //     state read the usual way (terminal-directions.ts).
  TERMINAL_DIRECTIONS_MIGRATION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to date. Refuses a journal written by a newer punchgate. `beforeStep` is
 * told each step before it runs (the daemon tells systemd, whose start timeout a large journal's
 * upgrade could otherwise outlast: killed, the step is rolled back and the next start begins it again).
 */
export function migrate(db: Database, beforeStep?: (from: number, target: number) => void): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `journal schema version ${current} is newer than this punchgate understands (${MIGRATIONS.length}): upgrade punchgate`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    beforeStep?.(v, MIGRATIONS.length);
    db.transaction(() => {
      applyMigration(db, MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
