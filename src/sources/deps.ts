import type { PunchSink, SourceStateStore } from '../journal/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { DeliveryCheck, SourceDeps, TerminalLedger } from './types.js';

/** The parts of a journal sources use: a sink, the terminals ledger, and the delivery check. */
export interface SourceJournal extends PunchSink {
  terminals: TerminalLedger;
  queries: DeliveryCheck;
  sourceState: SourceStateStore;
}

/** The journal as sources see it. */
export function sourceDepsFor(
  journal: SourceJournal,
  logger: Logger,
  clock: Clock,
  onPunches?: (added: number) => void,
): SourceDeps {
  return {
    sink: journal,
    ledger: journal.terminals,
    deliveryCheck: journal.queries,
    state: journal.sourceState,
    logger,
    clock,
    onPunches,
  };
}
