import type { Database } from 'better-sqlite3';

/**
 * The time zone each configured terminal had (its `timezone`, else the box's), kept after it is
 * taken out of the config: its punches still waiting are wall-clock times of that zone, and a sink
 * that converts times (Odoo, a Frappe sink with `timezone`) sent them in the box's zone once the
 * terminal was gone from the config (docs/terminals.md).
 */
export const TERMINAL_ZONES_MIGRATION = `
  CREATE TABLE terminal_zones (
    terminal  TEXT    PRIMARY KEY,
    -- The IANA zone its punches were read in, and when the config last said so (epoch ms).
    timezone  TEXT    NOT NULL,
    set_at    INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

/** The terminal_zones rows. */
export class TerminalZones {
  constructor(private readonly db: Database) {}

  /** Records the zones of the configured terminals; rows of terminals taken out stay. Written only when one changed. */
  remember(zones: readonly { terminal: string; timezone: string }[], at: number): void {
    const known = this.all();
    const changed = zones.filter((z) => known.get(z.terminal) !== z.timezone);
    if (changed.length === 0) return;
    const put = this.db.prepare(
      `INSERT INTO terminal_zones (terminal, timezone, set_at) VALUES (?, ?, ?)
       ON CONFLICT (terminal) DO UPDATE SET timezone = excluded.timezone, set_at = excluded.set_at`,
    );
    this.db.transaction(() => {
      for (const z of changed) put.run(z.terminal, z.timezone, at);
    })();
  }

  /** Each terminal's last known zone. */
  all(): Map<string, string> {
    const rows = this.db.prepare('SELECT terminal, timezone FROM terminal_zones').all() as {
      terminal: string;
      timezone: string;
    }[];
    return new Map(rows.map((r) => [r.terminal, r.timezone]));
  }
}
