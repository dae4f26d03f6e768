import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import { IMPORT_SOURCE } from '../sources/import/import-files.js';
import type { ImportedApartStatus } from './types.js';
import { stuckFix, waiting } from './removed-terminals.js';

/**
 * The punches imported apart from every terminal (`punchgate import` of a stick or file no terminal
 * is known for: filed under "import", docs/import.md), delivered or not. No terminal's row counts
 * them, so the status and the page said nothing once they were delivered, and the terminals' sums
 * fell short of the queue's delivered (a new-user trial: 76 on the page, 81 delivered). Read from
 * the kept counts per terminal and state (punch_counts): a few rows. None when there are none, or
 * when the config itself names a terminal "import" (its row counts them).
 */
export function importedApartOf(journal: Journal, config: Config): ImportedApartStatus | undefined {
  if (config.terminals.some((t) => t.name === IMPORT_SOURCE)) return undefined;
  const all = journal.punchCounts.byTerminal().find((t) => t.terminal === IMPORT_SOURCE);
  if (!all) return undefined;
  const w = journal.punchCounts.waitingByTerminal().find((t) => t.terminal === IMPORT_SOURCE);
  return {
    name: IMPORT_SOURCE,
    journaled: all.journaled,
    delivered: all.delivered,
    pending: w?.pending ?? 0,
    inflight: w?.inflight ?? 0,
    rejected: w?.rejected ?? 0,
    dead: w?.dead ?? 0,
    quarantined: w?.quarantined ?? 0,
  };
}

/**
 * The line under the status's terminals: how many were imported apart, how many are delivered,
 * what waits and the fix where there is one. "Imported apart", never "not in the config": they
 * were never a terminal the admin had.
 */
export function importedApartWords(t: ImportedApartStatus): string {
  return `${t.name}: ${importedApartFacts(t)}`;
}

/** The same without the name before it: the page's row for them. */
export function importedApartFacts(t: ImportedApartStatus): string {
  const { total, parts } = waiting(t);
  const head = `${t.journaled} ${t.journaled === 1 ? 'punch' : 'punches'} imported apart from every terminal (punchgate import without --terminal, counted in no terminal's row), ${t.delivered} delivered`;
  if (total === 0) return head;
  return `${head}, ${total} not delivered yet (${parts}): they are delivered as any terminal's (to every sink)${stuckFix(t)}`;
}
