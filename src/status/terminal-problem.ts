import type { TerminalConfig } from '../config/terminals.js';
import { addressShown } from '../config/web-address.js';
import type { TerminalRecord } from '../journal/types.js';

/**
 * What to try when a terminal of this kind has trouble and its source recorded no fix (a record
 * written by an older punchgate): where to look first, and `punchgate check`, which says exactly.
 */
function generalFix(cfg: TerminalConfig): string {
  switch (cfg.kind) {
    case 'zk':
      return `check the terminal's power and cable and its host (${cfg.host}) in the config; punchgate check tests it and says more`;
    case 'hikvision':
      return `check the terminal's power and cable and its url (${addressShown(cfg.url)}) in the config; punchgate check tests it and says more`;
    case 'serial':
      return `check that the reader is plugged in and its path (${cfg.path}) in the config (ls -l /dev/serial/by-id/); punchgate check tests it`;
    case 'dahua':
      return `check the terminal's power and cable and its host (${cfg.host}) in the config; punchgate check tests it and says more`;
    case 'adms':
      return "check its power and network, and that its Cloud Server Setting names this box's address and adms.listen port";
    case 'biotime':
      return `check that the BioTime server is up and its baseUrl (${addressShown(cfg.baseUrl)}) in the config; punchgate check tests it and says more`;
  }
}

/**
 * The terminal's trouble as the status shows it: the cause its source recorded (plain words) and
 * the fix recorded with it; a cause written as `what: put/set/check ...` is taken apart; without
 * a fix, the general one for its kind. Null when it has none.
 */
export function terminalProblem(
  cfg: TerminalConfig,
  r: Pick<TerminalRecord, 'lastError' | 'lastErrorFix'> | undefined,
): { cause: string; fix: string } | null {
  const error = r?.lastError;
  if (!error) return null;
  if (r.lastErrorFix) return { cause: error, fix: r.lastErrorFix };
  const m = /^(.*?): ((?:put|set|make|give|check|run|add|correct|wait|plug|remove) .*)$/s.exec(error);
  if (m) return { cause: m[1]!, fix: m[2]! };
  return { cause: error, fix: generalFix(cfg) };
}
