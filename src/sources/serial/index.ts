/** Serial terminals (RS232/RS485, USB-serial readers) as a punch source. */
export { SerialSource, type SerialSourceOptions, type SerialStopOptions } from './source.js';
export { SerialPortHandover } from './port-handover.js';
export type { SerialSourceStatus } from './status.js';
export { validateSerialTerminal } from './validate.js';
export {
  DEFAULT_SERIAL_PATTERN,
  compileLinePattern,
  createLineParser,
  type ParsedLine,
  type LineParser,
} from './line-parser.js';
export { compileTimeFormat, type TimeFormat } from './time-format.js';
export { parseCodeMap, readCodeMap, normaliseCard, UNKNOWN_CARD_PREFIX, type CodeMap } from './code-map.js';
export { LineSplitter, DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
export {
  openSerialPort,
  listSerialPorts,
  type OpenSerialLink,
  type SerialLink,
  type SerialLinkHandlers,
  type SerialLinkOptions,
  type SerialPortListing,
} from './port.js';
