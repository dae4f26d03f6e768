export {
  Deliverer,
  type BatchOptions,
  type BatchReport,
  type DelivererOptions,
  type TokenProvider,
} from './deliverer.js';
export type { DrainOptions, DrainReport } from './drain.js';
export type { BatchResult, DeliveryCounters } from './counters.js';
export { credentialWords, type CredentialWords, type DeliveryStateAccess } from './health.js';
export { BatchSizer } from './batch-size.js';
export { SplitQueue } from './batch-split.js';
export { classifyOutcomes, compilePatterns, describeTally, tally, type OutcomeTally } from './outcomes.js';
export { abortableSleep, type Sleep } from './sleep.js';
