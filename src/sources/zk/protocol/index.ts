export * from './constants.js';
export * from './checksum.js';
export * from './errors.js';
export * from './packet.js';
export * from './time.js';
export * from './commkey.js';
export * from './records.js';
export { readCString, writeCString } from './strings.js';
