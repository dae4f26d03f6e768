import type { Database } from 'better-sqlite3';

/**
 * Backups of users removed from a terminal (issue 16): the user record and its fingerprint
 * templates, saved before the removal so that `terminals restore-user` can put them back, and
 * deleted after `terminalUsers.backupRetentionDays`.
 *
 * Templates are biometric data. This store is their only home: nothing here is logged, listed
 * with its bytes, or exported; `list()` gives counts only.
 */

/** Migration (appended to MIGRATIONS in migrations.ts): the backups and their templates. */
export const USER_BACKUPS_MIGRATION = `
  CREATE TABLE user_backups (
    id          INTEGER PRIMARY KEY,
    terminal    TEXT    NOT NULL,
    -- The terminal's serial number and fingerprint algorithm (~ZKFPVersion) when the backup was taken.
    serial      TEXT    NOT NULL DEFAULT '',
    fp_version  TEXT,
    code        TEXT    NOT NULL,
    uid         INTEGER,
    name        TEXT    NOT NULL,
    card        INTEGER NOT NULL DEFAULT 0,
    privilege   INTEGER NOT NULL DEFAULT 0,
    reason      TEXT    NOT NULL,
    taken_at    INTEGER NOT NULL,
    restored_at INTEGER
  );
  CREATE INDEX user_backups_code ON user_backups (terminal, code, taken_at);
  CREATE INDEX user_backups_taken_at ON user_backups (taken_at);
  CREATE TABLE user_backup_templates (
    backup_id INTEGER NOT NULL REFERENCES user_backups (id) ON DELETE CASCADE,
    finger    INTEGER NOT NULL,
    valid     INTEGER NOT NULL DEFAULT 1,
    template  BLOB    NOT NULL,
    PRIMARY KEY (backup_id, finger)
  );
`;

/**
 * Migration: every card of the user, as the terminal spells them (JSON list of text). A person may
 * hold several cards on Hikvision and Dahua terminals, or one with leading zeros; `card` (one
 * number) kept none of them. NULL on backups taken before.
 */
export const USER_BACKUP_CARDS_MIGRATION = `
  ALTER TABLE user_backups ADD COLUMN cards TEXT;
`;

export interface BackupTemplate {
  finger: number;
  valid: number;
  template: Buffer;
}

export interface UserBackupInput {
  terminal: string;
  serial: string;
  fpVersion: string | null;
  code: string;
  uid: number | null;
  name: string;
  card: number;
  /** Every card as the terminal spells them; null on backups taken before they were kept. */
  cards?: readonly string[] | null;
  privilege: number;
  /** Why the user was removed, e.g. `sync-users: inactive in the roster`. */
  reason: string;
  templates: readonly BackupTemplate[];
}

export interface UserBackup extends Omit<UserBackupInput, 'templates'> {
  id: number;
  takenAt: number;
  restoredAt: number | null;
  templates: BackupTemplate[];
}

/** A backup as listed: everything but the template bytes. */
export type UserBackupSummary = Omit<UserBackup, 'templates'> & { fingers: number };

type Row = Record<string, unknown>;

const DAY_MS = 86_400_000;

function toSummary(r: Row): UserBackupSummary {
  return {
    id: r.id as number,
    terminal: r.terminal as string,
    serial: r.serial as string,
    fpVersion: r.fp_version as string | null,
    code: r.code as string,
    uid: r.uid as number | null,
    name: r.name as string,
    card: r.card as number,
    cards: cardsOf(r.cards),
    privilege: r.privilege as number,
    reason: r.reason as string,
    takenAt: r.taken_at as number,
    restoredAt: r.restored_at as number | null,
    fingers: (r.fingers as number | undefined) ?? 0,
  };
}

function cardsOf(v: unknown): string[] | null {
  if (typeof v !== 'string') return null;
  try {
    const list = JSON.parse(v) as unknown;
    return Array.isArray(list) ? list.map(String) : null;
  } catch {
    return null;
  }
}

export class UserBackupStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Saves one backup in one durable transaction; returns its id. */
  save(b: UserBackupInput): number {
    return this.db
      .transaction(() => {
        const { lastInsertRowid } = this.db
          .prepare(
            `INSERT INTO user_backups (terminal, serial, fp_version, code, uid, name, card, cards, privilege, reason, taken_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            b.terminal,
            b.serial,
            b.fpVersion,
            b.code,
            b.uid,
            b.name,
            b.card,
            b.cards ? JSON.stringify(b.cards) : null,
            b.privilege,
            b.reason,
            this.now(),
          );
        const id = Number(lastInsertRowid);
        const put = this.db.prepare(
          'INSERT OR REPLACE INTO user_backup_templates (backup_id, finger, valid, template) VALUES (?, ?, ?, ?)',
        );
        for (const t of b.templates) put.run(id, t.finger, t.valid, t.template);
        return id;
      })
      .immediate();
  }

  /** The newest backup of `code` taken on `terminal`, with its templates. */
  latest(terminal: string, code: string): UserBackup | undefined {
    const r = this.db
      .prepare('SELECT * FROM user_backups WHERE terminal = ? AND code = ? ORDER BY taken_at DESC, id DESC LIMIT 1')
      .get(terminal, code) as Row | undefined;
    if (!r) return undefined;
    const templates = (
      this.db
        .prepare('SELECT finger, valid, template FROM user_backup_templates WHERE backup_id = ? ORDER BY finger')
        .all(r.id) as Row[]
    ).map((t) => ({ finger: t.finger as number, valid: t.valid as number, template: t.template as Buffer }));
    const { fingers: _f, ...summary } = toSummary(r);
    return { ...summary, templates };
  }

  /** Backups, newest first, without template bytes. */
  list(terminal?: string): UserBackupSummary[] {
    const rows = this.db
      .prepare(
        `SELECT b.*, (SELECT count(*) FROM user_backup_templates t WHERE t.backup_id = b.id) AS fingers
         FROM user_backups b WHERE (@t IS NULL OR b.terminal = @t) ORDER BY b.taken_at DESC, b.id DESC`,
      )
      .all({ t: terminal ?? null }) as Row[];
    return rows.map(toSummary);
  }

  markRestored(id: number): void {
    this.db.prepare('UPDATE user_backups SET restored_at = ? WHERE id = ?').run(this.now(), id);
  }

  /**
   * Deletes backups (and their templates) older than `retentionDays`, the oldest first, at most
   * `limit` of them (the daemon deletes a chunk at a time, the event loop served between chunks);
   * returns how many.
   */
  prune(retentionDays: number, limit = -1): number {
    const cutoff = this.now() - retentionDays * DAY_MS;
    // secure_delete overwrites the freed template bytes with zeros instead of leaving them in free pages.
    const previous = this.db.pragma('secure_delete', { simple: true }) as number;
    this.db.pragma('secure_delete = ON');
    try {
      // LIMIT -1 is no limit. Found through the index on taken_at.
      return this.db
        .prepare(
          `DELETE FROM user_backups WHERE id IN (SELECT id FROM user_backups WHERE taken_at < ? ORDER BY taken_at LIMIT ?)`,
        )
        .run(cutoff, limit).changes;
    } finally {
      this.db.pragma(`secure_delete = ${previous ? 'ON' : 'OFF'}`);
    }
  }
}
