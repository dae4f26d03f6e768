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
 * the kept counts of "import" alone (punch_counts, by its key: a few rows; reading every
 * terminal's rows twice more made the status build over a year of punches 2.2 times the empty
 * journal's, against 1.6 before). None when there are none, or when the config itself names a
 * terminal "import" (its row counts them).
 */
export function importedApartOf(journal: Journal, config: Config): ImportedApartStatus | undefined {
  if (config.terminals.some((t) => t.name === IMPORT_SOURCE)) return undefined;
  const c = journal.punchCounts.ofTerminal(IMPORT_SOURCE);
  const journaled = Object.values(c).reduce((sum, n) => sum + n, 0);
  if (journaled <= 0) return undefined;
  const atLeast0 = (n: number) => Math.max(0, n);
  return {
    name: IMPORT_SOURCE,
    journaled,
    delivered: c.delivered,
    pending: atLeast0(c.pending),
    inflight: atLeast0(c.inflight),
    rejected: atLeast0(c.rejected),
    dead: atLeast0(c.dead),
    quarantined: atLeast0(c.quarantined),
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
