import type { DahuaTerminalConfig } from '../../config/terminals.js';
import { readPasswordOf } from '../terminal-password.js';
import { DahuaSetupError } from './errors.js';

/** A terminal's password and when it last changed (a file's modification time; null from the environment). */
export interface DahuaPassword {
  password: string;
  changedAt: number | null;
  /** Where it came from, for messages (never the value). */
  from: string;
}

/**
 * The password of a Dahua terminal: `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else the first
 * line of `passwordFile`. Read at each poll, so a corrected file is used at once.
 */
export function readDahuaPassword(
  cfg: Pick<DahuaTerminalConfig, 'name' | 'passwordFile'>,
  env: NodeJS.ProcessEnv = process.env,
): DahuaPassword {
  const { password, changedAt, from } = readPasswordOf(cfg, env, (m) => new DahuaSetupError(m));
  return { password, changedAt, from };
}
