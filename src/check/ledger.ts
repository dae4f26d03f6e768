import { Database } from '../journal/sqlite-driver.js';
import { existsSync } from 'node:fs';
import { TerminalStateStore } from '../journal/state-stores.js';
import type { TerminalRecord } from '../journal/types.js';
import { readRefusal, type AuthRefusal } from '../sources/hikvision/auth-gate.js';
import { WriteGate } from '../journal/write-gate.js';
import { systemClock } from '../util/clock.js';
import { foreignLinkToJournal } from '../journal/journal-file.js';

/**
 * What `punchgate run` last recorded about each terminal, read from the journal read-only.
 * Empty when there is no journal or it cannot be read, or (run as root) it is reached through another
 * user's link: the journal check reports each.
 */
export function readTerminalLedger(journalPath: string): Map<string, TerminalRecord> {
  if (!existsSync(journalPath) || foreignLinkToJournal(journalPath)) return new Map();
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

/**
 * What punchgate run keeps per terminal in the journal's source state (read-only), as `read`
 * makes it of each terminal's entries; a terminal it gives nothing for is left out. Empty when
 * there is no journal yet, or one from before source_state: nothing recorded.
 */
export function readSourceStates<T>(
  journalPath: string,
  terminals: readonly string[],
  read: (state: { get: (terminal: string, key: string) => string | undefined }, terminal: string) => T | undefined,
): Map<string, T> {
  const out = new Map<string, T>();
  if (!existsSync(journalPath) || foreignLinkToJournal(journalPath) || terminals.length === 0) return out;
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 2000 });
    const stmt = db.prepare('SELECT value FROM source_state WHERE terminal = ? AND key = ?');
    const state = { get: (t: string, k: string) => (stmt.get(t, k) as { value: string } | undefined)?.value };
    for (const t of terminals) {
      const v = read(state, t);
      if (v !== undefined) out.set(t, v);
    }
  } catch {
    // No journal yet, or one from before source_state: nothing recorded.
  } finally {
    db?.close();
  }
  return out;
}

/**
 * The password refusals punchgate run recorded per Hikvision terminal (read-only): `check` keeps
 * to their wait instead of spending one more try towards the device's lock.
 */
export function readAuthRefusals(journalPath: string, terminals: readonly string[]): Map<string, AuthRefusal> {
  return readSourceStates(journalPath, terminals, readRefusal);
}
