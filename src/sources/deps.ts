import type { Journal } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { SourceDeps } from './types.js';

/** The journal as sources see it: a sink, the terminals ledger, and the delivery check. */
export function sourceDepsFor(
  journal: Journal,
  logger: Logger,
  clock: Clock,
  onPunches?: (added: number) => void,
): SourceDeps {
  return { sink: journal, ledger: journal.terminals, deliveryCheck: journal.queries, logger, clock, onPunches };
}
