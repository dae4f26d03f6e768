import { Database } from '../journal/sqlite-driver.js';
import { existsSync } from 'node:fs';
import { TerminalStateStore } from '../journal/state-stores.js';
import type { TerminalRecord } from '../journal/types.js';
import { WriteGate } from '../journal/write-gate.js';
import { systemClock } from '../util/clock.js';

/**
 * What `punchgate run` last recorded about each terminal, read from the journal read-only.
 * Empty when there is no journal or it cannot be read (the journal check reports that).
 */
export function readTerminalLedger(journalPath: string): Map<string, TerminalRecord> {
  if (!existsSync(journalPath)) return new Map();
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 2000 });
    return new Map(new TerminalStateStore(db, new WriteGate({ clock: systemClock })).list().map((t) => [t.name, t]));
  } catch {
    return new Map();
  } finally {
    db?.close();
  }
}
