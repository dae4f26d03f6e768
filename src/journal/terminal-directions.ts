import type { Database } from 'better-sqlite3';

/**
 * The direction setting each configured terminal had (its `direction` and `directionStates`),
 * kept after it is taken out of the config, like its zone (terminal-zones.ts): its punches still
 * waiting went out with the direction of a terminal punchgate knew nothing of (the device's state
 * read the usual way), so an exit's `direction: out` punches arrived as check-ins and a sink that
 * pairs check-in and check-out (Odoo in turn, Frappe by log type) paired them wrong. The journal
 * keeps what the config said, as text; src/punch/direction.ts makes the rule of it.
 */
export const TERMINAL_DIRECTIONS_MIGRATION = `
  CREATE TABLE terminal_directions (
    terminal   TEXT    PRIMARY KEY,
    -- The terminal's direction setting: device, in, out, alternate or none.
    direction  TEXT    NOT NULL,
    -- Its states that mean something else than the usual, as JSON ({"2":"none"}), '{}' for none.
    states     TEXT    NOT NULL,
    -- When the config last said so (epoch ms).
    set_at     INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

/** What the journal keeps of one terminal's direction setting. */
export interface KeptDirection {
  terminal: string;
  direction: string;
  states: string;
}

/** The terminal_directions rows. */
export class TerminalDirections {
  constructor(private readonly db: Database) {}

  /** Records the settings of the configured terminals; rows of terminals taken out stay. Written only when one changed. */
  remember(rows: readonly KeptDirection[], at: number): void {
    const known = this.all();
    const changed = rows.filter((r) => {
      const k = known.get(r.terminal);
      return k?.direction !== r.direction || k.states !== r.states;
    });
    if (changed.length === 0) return;
    const put = this.db.prepare(
      `INSERT INTO terminal_directions (terminal, direction, states, set_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (terminal) DO UPDATE SET direction = excluded.direction, states = excluded.states,
         set_at = excluded.set_at`,
    );
    this.db.transaction(() => {
      for (const r of changed) put.run(r.terminal, r.direction, r.states, at);
    })();
  }

  /** Each terminal's last known setting. */
  all(): Map<string, KeptDirection> {
    const rows = this.db
      .prepare('SELECT terminal, direction, states FROM terminal_directions')
      .all() as KeptDirection[];
    return new Map(rows.map((r) => [r.terminal, { terminal: r.terminal, direction: r.direction, states: r.states }]));
  }
}
