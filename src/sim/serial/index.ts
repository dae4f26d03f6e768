/** `punchgate sim serial`: a serial terminal on a pseudo-terminal (or a real port), for tests and demos. */
export { createPtyPair, SocatMissingError, type PtyPair, type PtyPairOptions } from './pty-pair.js';
export {
  startSerialSim,
  type SerialSimOptions,
  type SerialSimResult,
  type SerialSimRun,
  type LineEnding,
} from './writer.js';
export { SimLines, DEFAULT_REGEX_CODES, type SimFormat, type SimLineOptions } from './lines.js';
export { ReaderSteps, readerCodesProblem, SIM_READERS, type SimReader, type ReaderStep } from './readers.js';
