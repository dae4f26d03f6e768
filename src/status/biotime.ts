import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { biotimeNotes, readDevices, type BioNote } from '../sources/biotime/index.js';
import { ALERT } from './alert-words.js';
import type { Alert, StatusReport } from './types.js';

/**
 * A BioTime server's alerts (see src/sources/biotime/notes.ts): a licence that refuses the API, a
 * refused password, a renumbered or cleared transaction table, a server behind its terminals, a
 * poll ended at a bound, implausible transaction ids. Each names the server, says what happened
 * and the fix.
 */
export function biotimeAlerts(journal: Journal, config: Config, now: number): Alert[] {
  const out: Alert[] = [];
  for (const t of config.terminals) {
    if (t.kind !== 'biotime') continue;
    for (const n of biotimeNotes(journal.sourceState, t.name, now)) out.push(alertOf(t.name, n));
  }
  return out;
}

function alertOf(server: string, n: BioNote): Alert {
  switch (n.topic) {
    case 'api':
      return ALERT.biotimeApiRefused(server, n);
    case 'password':
      return ALERT.biotimePasswordRefused(server, n);
    case 'table':
      return ALERT.biotimeTableRenumbered(server, n);
    case 'lag':
      return ALERT.biotimeServerBehind(server, n);
    case 'poll':
    case 'rows':
      return ALERT.biotimeReading(server, n);
  }
}

/** The terminals behind each BioTime server, as its source saw them in its transactions. */
export function addBiotimeDevices(report: StatusReport, journal: Journal, config: Config): void {
  for (const t of report.terminals) {
    if (t.kind !== 'biotime' || !config.terminals.some((c) => c.name === t.name && c.kind === 'biotime')) continue;
    t.devices = readDevices(journal.sourceState, t.name).map((d) => ({
      serial: d.serial,
      alias: d.alias,
      area: d.area,
      lastPunch: d.lastPunch,
      read: d.read,
    }));
  }
}
