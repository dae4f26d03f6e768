import type { BiotimeTerminalConfig } from '../../config/terminals.js';
import { readPasswordOf } from '../terminal-password.js';
import { BioSetupError } from './errors.js';

/**
 * The password of the BioTime account: `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else the
 * first line of `passwordFile`. Read at each poll, so a corrected file is used at once.
 */
export function readBiotimePassword(
  cfg: Pick<BiotimeTerminalConfig, 'name' | 'passwordFile'>,
  env: NodeJS.ProcessEnv = process.env,
): { password: string; changedAt: number | null; from: string } {
  const { password, changedAt, from } = readPasswordOf(cfg, env, (m) => new BioSetupError(m));
  return { password, changedAt, from };
}
