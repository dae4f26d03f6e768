export {
  HikvisionClient,
  splitIsoTime,
  type DeviceInfo,
  type DeviceTime,
  type EventPage,
  type EventQuery,
} from './client.js';
export {
  HikApiError,
  HikAuthError,
  HikChallengeError,
  HikConnectionError,
  HikSetupError,
  HikStaleNonceError,
  HikTlsError,
} from './errors.js';
export { describeHikFault } from './fault.js';
export { HikvisionPoller, defaultHikClientFactory, type HikClientFactory, type HikPollResult } from './poll.js';
export { readTerminalPassword, type TerminalPassword } from './password.js';
export { HikvisionSource, type HikvisionSourceOptions, type Scheduler } from './source.js';
export { DEFAULT_VALID, HikUsers, type HikCard, type HikUser, type HikUserInput } from './users.js';
