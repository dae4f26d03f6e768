import type { SerialTerminalConfig } from '../../config/terminals.js';
import { localTime } from '../../util/local-time.js';
import type { SerialSourceStatus } from './status.js';

/**
 * A reader that sends bytes but never a read punchgate can cut out (an RDM6300 on a config that
 * waits for line ends, a wrong baud rate) loses every card while the port looks fine. Said as a
 * problem of the terminal once bytes have kept coming for `noFrameAlertSeconds` without making one
 * card, key or line (the first and the last of them that far apart), or at once when a read grew past the bound: the cause begins with the terminal's
 * name (the status raises it as an alert) and the fix names the framing to try.
 */
export function framingProblem(
  s: SerialSourceStatus,
  cfg: SerialTerminalConfig,
  maxBytes: number,
): { cause: string; fix: string } | null {
  const since = s.unframedSince;
  // Bytes that keep arriving for the whole time, not one burst and a quiet after it: a reader
  // powering up or a cable plugged in sends a few bytes once, and no read of it was lost (the
  // alert stood from one such burst until the next card, a whole night on a quiet door).
  const long =
    since !== null && s.unframedLastAt !== null && s.unframedLastAt - since >= cfg.noFrameAlertSeconds * 1000;
  if (!long && s.unframedOverflows === 0) return null;
  const what = [
    since !== null ? `${s.unframedBytes} bytes since ${localTime(since)}` : null,
    s.unframedOverflows > 0
      ? `${s.unframedOverflows} ${s.unframedOverflows === 1 ? 'read' : 'reads'} longer than ${maxBytes} bytes without an end`
      : null,
  ]
    .filter(Boolean)
    .join(', ');
  return {
    cause: `${cfg.name} sends bytes that make no card read or line (${what}; framing: ${cfg.framing}): its reads are lost`,
    fix: `${framingToTry(cfg)}; if the bytes look like noise (punchgate logs a sample), set baudRate (now ${cfg.baudRate}), parity and stopBits as the reader's manual says`,
  };
}

function framingToTry(cfg: SerialTerminalConfig): string {
  switch (cfg.framing) {
    case 'line':
      return 'set framing: auto for it (STX/ETX frames such as RDM6300 readers send), or framing: gap if the reader only pauses between reads';
    case 'auto':
    case 'etx':
      // EM-18-type modules send an RDM6300's 12 hex digits with nothing around them: the reader
      // most likely to land here, and the one setting that reads it safely (docs/terminals-serial.md).
      return 'set framing: gap for it (a silence ends each read), or framing: length with frameBytes: N if each read has N bytes; an EM-18-type reader (12 hex digits a read): framing: length with frameBytes: 12';
    case 'length':
      return `check frameBytes (now ${cfg.frameBytes ?? '?'}) against one read of the reader, or set framing: gap`;
    case 'gap':
      return `set a shorter gapMs (now ${cfg.gapMs}) or framing: length with frameBytes: N`;
  }
}
