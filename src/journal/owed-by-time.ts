import { OWED_TERM } from './state-terms.js';

/**
 * The indexes of what each sink still owes, keyed by log time first (issue 35), in place of the
 * same rows keyed by terminal first (shift-progress.ts, state-terms.ts).
 *
 * Why: delivery claims and settles punches in the queue's order, log time first, and each state
 * change of a punch rewrites or removes its entry in these indexes. Keyed by terminal, a batch of
 * a site whose punches come from 200 terminals touched about 200 pages of the index, one per
 * terminal, and the commit wrote every one of them to the WAL: settling 200 punches and claiming
 * the next 200 took a median of 6 ms (p90 12 ms) against 3 ms without the index. Keyed by log
 * time, a batch's entries sit side by side, on one or two pages: 3.3 ms (p90 4.2). Delivery's
 * turn on the event loop is that much shorter, and with it the wait of the push terminals, the
 * real-time punches and the scrapes that come in during it.
 *
 * The one query these indexes serve, the Frappe shift sync's oldest owed punch per terminal, walks
 * them in log-time order instead (ShiftProgressQueries): bounded, and exact below its bound.
 */
export const OWED_BY_TIME_MIGRATION = `
  DROP INDEX IF EXISTS punches_owed_by_terminal;
  CREATE INDEX punches_owed_by_time ON punches (log_time, terminal) WHERE ${OWED_TERM};
  DROP INDEX IF EXISTS sink_owed_by_terminal;
  CREATE INDEX sink_owed_by_time ON sink_deliveries (sink, log_time, terminal) WHERE ${OWED_TERM};
`;

/** The indexes the migration makes (tests that put a journal back to an older version drop them). */
export const OWED_BY_TIME_INDEXES = ['punches_owed_by_time', 'sink_owed_by_time'] as const;
