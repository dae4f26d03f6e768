import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { activeDahuaNotes } from '../sources/dahua/index.js';
import { ALERT, type Alert } from './alert-words.js';

/** Alerts about Dahua terminals that misbehaved lately (src/sources/dahua/notes.ts). */
export function dahuaAlerts(journal: Journal, config: Config, now: number): Alert[] {
  const out: Alert[] = [];
  for (const t of config.terminals) {
    if (t.kind !== 'dahua') continue;
    for (const n of activeDahuaNotes(journal.sourceState, t.name, now)) out.push(ALERT.dahuaNote(t.name, n));
  }
  return out;
}
