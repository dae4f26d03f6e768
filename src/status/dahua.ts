import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { activePushNotes } from '../sources/adms/index.js';
import { activeDahuaNotes } from '../sources/dahua/index.js';
import { activeZkNotes } from '../sources/zk/notes.js';
import { ALERT, type Alert } from './alert-words.js';

/**
 * Alerts about Dahua terminals that misbehaved lately (src/sources/dahua/notes.ts), and push
 * terminals whose uploads the receiver refused lately (src/sources/adms/notes.ts), and ZK
 * terminals whose real-time connection keeps dropping (src/sources/zk/notes.ts).
 */
export function deviceNoteAlerts(journal: Journal, config: Config, now: number): Alert[] {
  const out: Alert[] = [];
  for (const t of config.terminals) {
    if (t.kind === 'dahua')
      for (const n of activeDahuaNotes(journal.sourceState, t.name, now)) out.push(ALERT.dahuaNote(t.name, n));
    if (t.kind === 'zk')
      for (const n of activeZkNotes(journal.sourceState, t.name, now)) out.push(ALERT.zkNote(t.name, n));
    if (t.kind === 'adms')
      for (const n of activePushNotes(journal.sourceState, t.name, now)) out.push(ALERT.pushNote(t.name, n));
  }
  return out;
}
