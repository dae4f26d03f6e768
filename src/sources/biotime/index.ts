export { BioTimeClient, openClient, parsePage, type BioPage, type BioRow } from './client.js';
export { readDevices, type SeenDevice } from './devices.js';
export { BioApiError, BioAuthError, BioConnectionError, BioRefusedError, BioSetupError } from './errors.js';
export { activeNotes as biotimeNotes, type BioNote } from './notes.js';
export { readBiotimePassword } from './password.js';
export { BiotimePoller, defaultBioClientFactory, type BioClientFactory, type BioPollResult } from './poll.js';
export { BiotimeSource, type BiotimeSourceOptions } from './source.js';
