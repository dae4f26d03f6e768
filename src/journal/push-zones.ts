import type { PreparedStatements } from './prepared.js';

/**
 * The UTC offset each push terminal was told (`TimeZone=` of its option block) and the offset a
 * `CHECK` was queued for. A terminal reads its options only when it starts, or when told `CHECK`:
 * after a DST change or a changed `timezone` in the config it keeps the old offset until then.
 * The receiver compares today's offset with the one told and asks once per new offset
 * (protocol.ts), so a terminal that refuses `CHECK` is not asked at every poll. Keyed by serial
 * too: a device swapped in under the same name was told nothing yet.
 */
export const PUSH_ZONES_MIGRATION = `
  CREATE TABLE push_zones (
    terminal  TEXT    NOT NULL,
    serial    TEXT    NOT NULL,
    -- Minutes east of UTC told in the last option block, and when.
    told      INTEGER NOT NULL,
    told_at   INTEGER NOT NULL,
    -- The offset a CHECK was queued for since (NULL: none), and when.
    asked_for INTEGER,
    asked_at  INTEGER,
    PRIMARY KEY (terminal, serial)
  ) WITHOUT ROWID;
`;

export interface PushZone {
  /** Minutes east of UTC the terminal was told at its last option fetch, and since when (first told it). */
  told: number;
  toldAt: number;
  /** The offset a CHECK was queued for since (null: none). */
  askedFor: number | null;
  askedAt: number | null;
}

type Row = { told: number; told_at: number; asked_for: number | null; asked_at: number | null };

/** The push_zones rows, read and written through the store's prepared statements. */
export class PushZones {
  constructor(private readonly statements: PreparedStatements) {}

  /**
   * A terminal fetched its options and was told `minutes`: nothing is asked of it any more.
   * Written only when that changes anything: every option fetch of every push terminal lands
   * here, and a write in its request path is a disk sync (200 terminals starting at once spent
   * seconds in them). So `told_at` is when the terminal was first told this offset.
   */
  told(terminal: string, serial: string, minutes: number, at: number): void {
    const now = this.get(terminal, serial);
    if (now && now.told === minutes && now.askedFor === null && now.askedAt === null) return;
    this.statements
      .get(
        `INSERT INTO push_zones (terminal, serial, told, told_at, asked_for, asked_at) VALUES (?, ?, ?, ?, NULL, NULL)
         ON CONFLICT (terminal, serial) DO UPDATE SET told = excluded.told, told_at = excluded.told_at,
           asked_for = NULL, asked_at = NULL`,
      )
      .run(terminal, serial, minutes, at);
  }

  /** A CHECK was queued for the terminal to learn `minutes`. */
  asked(terminal: string, serial: string, minutes: number, at: number): void {
    this.statements
      .get(`UPDATE push_zones SET asked_for = ?, asked_at = ? WHERE terminal = ? AND serial = ?`)
      .run(minutes, at, terminal, serial);
  }

  get(terminal: string, serial: string): PushZone | undefined {
    const r = this.statements
      .get(`SELECT told, told_at, asked_for, asked_at FROM push_zones WHERE terminal = ? AND serial = ?`)
      .get(terminal, serial) as Row | undefined;
    return r ? { told: r.told, toldAt: r.told_at, askedFor: r.asked_for, askedAt: r.asked_at } : undefined;
  }

  /** Every terminal's zone record (for the status). */
  all(): (PushZone & { terminal: string; serial: string })[] {
    return (
      this.statements.get(`SELECT * FROM push_zones ORDER BY terminal`).all() as (Row & {
        terminal: string;
        serial: string;
      })[]
    ).map((r) => ({
      terminal: r.terminal,
      serial: r.serial,
      told: r.told,
      toldAt: r.told_at,
      askedFor: r.asked_for,
      askedAt: r.asked_at,
    }));
  }
}
