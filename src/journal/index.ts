export { Journal, type JournalOptions } from './journal.js';
export { JournalLockedError } from './lock.js';
export { isFatalJournalError } from './errors.js';
export type * from './types.js';
export { PUNCH_STATES } from './types.js';
