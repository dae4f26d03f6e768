export { DahuaClient, type DahuaIdentity, type TimeCondition } from './client.js';
export {
  DahuaApiError,
  DahuaAuthError,
  DahuaChallengeError,
  DahuaConnectionError,
  DahuaSetupError,
  DahuaStaleNonceError,
} from './errors.js';
export { describeDahuaFault, dahuaUrl } from './fault.js';
export { activeDahuaNotes, type DahuaNote } from './notes.js';
export { readDahuaPassword } from './password.js';
export { DahuaPoller, defaultDahuaClientFactory, type DahuaClientFactory, type DahuaPollResult } from './poll.js';
export { DahuaSource, type DahuaSourceOptions } from './source.js';
export { NoCardForRecordError, type DahuaUser, type UserApi } from './users.js';
