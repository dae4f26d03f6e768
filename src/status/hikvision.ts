import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { activeNotes } from '../sources/hikvision/notes.js';
import { localTime } from '../util/local-time.js';

/**
 * Alerts about Hikvision terminals that misbehaved lately (see src/sources/hikvision/notes.ts): a
 * search it does not end, an answer or an alert-stream part beyond the bounds, implausible
 * events, a read position set back. Each names the terminal, says what happened and the fix.
 */
export function hikvisionAlerts(journal: Journal, config: Config, now: number): string[] {
  const out: string[] = [];
  for (const t of config.terminals) {
    if (t.kind !== 'hikvision') continue;
    for (const n of activeNotes(journal.sourceState, t.name, now)) {
      out.push(`terminal ${t.name}: ${n.message} (last at ${localTime(n.at)})`);
    }
  }
  return out;
}
