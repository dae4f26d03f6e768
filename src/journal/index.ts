export { Journal, type JournalOptions } from './journal.js';
export { JournalLockedError, OwnerLock } from './lock.js';
export {
  describeJournalFailure,
  isBusyJournalError,
  isFatalJournalError,
  JournalBusyError,
  JournalUnusableError,
} from './errors.js';
export type * from './types.js';
export { PUNCH_STATES } from './types.js';
