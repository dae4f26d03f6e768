import type { SerialTerminalConfig } from '../../config/terminals.js';
import { readCodeMap } from './code-map.js';
import { compileLinePattern, DEFAULT_SERIAL_PATTERN } from './line-parser.js';
import { compileTimeFormat } from './time-format.js';

/**
 * Checks of a serial terminal that the zod schema cannot make: the pattern compiles and
 * has the groups `code` and `time` (only `code` with `format: card`), the time format is understood, the code map is readable
 * and well formed, the backoff bounds are in order. Returns `path: message` lines (empty
 * when all is well); `at` is the terminal's place in the config, e.g. `terminals[2]`.
 * The device path is not checked: an adapter may be unplugged when the config is loaded.
 */
export function validateSerialTerminal(cfg: SerialTerminalConfig, at = `terminals.${cfg.name}`): string[] {
  const problems: string[] = [];
  if (cfg.format === 'regex') {
    for (const p of compileLinePattern(cfg.pattern ?? DEFAULT_SERIAL_PATTERN).problems)
      problems.push(`${at}.pattern: ${p}`);
    for (const p of compileTimeFormat(cfg.timeFormat).problems) problems.push(`${at}.timeFormat: ${p}`);
  } else if (cfg.pattern !== undefined) {
    // format: card: the pattern finds the card in a reader's line; the time is the box's clock.
    for (const p of compileLinePattern(cfg.pattern, ['code']).problems) problems.push(`${at}.pattern: ${p}`);
  }
  if (cfg.codeMap !== undefined) {
    for (const p of readCodeMap(cfg.codeMap).problems) problems.push(`${at}.codeMap: ${p}`);
  }
  if (cfg.framing === 'length' && cfg.frameBytes === undefined) {
    problems.push(`${at}.frameBytes: is needed with framing: length (the bytes of one read, e.g. 14)`);
  } else if (cfg.framing !== 'length' && cfg.frameBytes !== undefined) {
    problems.push(`${at}.frameBytes: is only used with framing: length (this terminal has framing: ${cfg.framing})`);
  }
  for (const key of Object.keys(cfg.keypadStates ?? {})) {
    if (cfg.format !== 'card')
      problems.push(`${at}.keypadStates: is only used with format: card (this terminal has format: ${cfg.format})`);
    else if (key.length > cfg.keypadMaxBytes)
      problems.push(
        `${at}.keypadStates: key "${key}" is longer than keypadMaxBytes (${cfg.keypadMaxBytes}): it would be read as a card`,
      );
    else continue;
    break;
  }
  if (cfg.reconnectMinMs > cfg.reconnectMaxMs) {
    problems.push(`${at}.reconnectMinMs: must not be more than reconnectMaxMs (${cfg.reconnectMaxMs})`);
  }
  return problems;
}
