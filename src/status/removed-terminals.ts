import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import type { RemovedTerminalStatus } from './types.js';
import { IMPORT_SOURCE } from '../sources/import/import-files.js';

/**
 * Terminals the config no longer names (taken out, or renamed) whose punches are not all
 * delivered. Their punches are still delivered (a terminal not in the config goes to every
 * sink), but the status listed only the configured terminals: a terminal taken out with a
 * backlog, during an HRMS outage, vanished from the status and the page while its punches
 * waited, were refused or were given up (a long-life trial). Read from the kept counts per
 * terminal and state (punch_counts): a few rows, whatever the journal's size, the configured
 * terminals' left out by SQLite.
 */
export function removedTerminalsOf(journal: Journal, config: Config): RemovedTerminalStatus[] {
  // Punches imported apart were never a terminal of the config: said on their own (imported-apart.ts).
  const named = [...config.terminals.map((t) => t.name), IMPORT_SOURCE];
  return journal.punchCounts
    .waitingByTerminal(named)
    .map(({ terminal, ...counts }) => ({ name: terminal, ...counts }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Its punches not delivered, in words: "6 punches not delivered yet (pending 6)". */
export function waiting(t: RemovedTerminalStatus): { total: number; parts: string } {
  const states = ['pending', 'inflight', 'rejected', 'dead', 'quarantined'] as const;
  const total = states.reduce((n, s) => n + t[s], 0);
  const parts = states
    .filter((s) => t[s] > 0)
    .map((s) => `${s === 'inflight' ? 'in flight' : s} ${t[s]}`)
    .join(', ');
  return { total, parts };
}

/** The line under the status's terminals: what waits, that it is still delivered, and the fix where there is one. */
export function removedTerminalWords(t: RemovedTerminalStatus): string {
  const { total, parts } = waiting(t);
  const fix = stuckFix(t);
  const notYet = `${total} of its punches ${total === 1 ? 'is' : 'are'} not delivered yet (${parts})`;
  return `${t.name}: not in the config, and ${notYet}: they are delivered as any other terminal's (to every sink), nothing is lost by taking it out${fix}`;
}

/** What sends its dead punches again and lists its quarantined ones ("" when it has neither). */
export function stuckFix(t: RemovedTerminalStatus): string {
  const stuck = t.dead + t.quarantined;
  return stuck > 0
    ? `; ${t.dead > 0 ? `the dead ones are sent again by punchgate punches retry --state dead --terminal ${t.name}` : ''}${t.dead > 0 && t.quarantined > 0 ? ', ' : ''}${t.quarantined > 0 ? `the quarantined ones are listed by punchgate punches --state quarantined --terminal ${t.name} (release them if their times are right)` : ''}`
    : '';
}
