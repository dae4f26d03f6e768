import { readFileSync, statSync } from 'node:fs';
import { terminalPasswordEnv, type BiotimeTerminalConfig } from '../../config/terminals.js';
import { BioSetupError } from './errors.js';

/**
 * The password of the BioTime account: `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else the
 * first line of `passwordFile`. Read at each poll, so a corrected file is used at once.
 */
export function readBiotimePassword(
  cfg: Pick<BiotimeTerminalConfig, 'name' | 'passwordFile'>,
  env: NodeJS.ProcessEnv = process.env,
): { password: string; changedAt: number | null; from: string } {
  const name = terminalPasswordEnv(cfg.name);
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== '') return { password: fromEnv, changedAt: null, from: name };
  if (!cfg.passwordFile)
    throw new BioSetupError(`no password for ${cfg.name}: set passwordFile, or the environment variable ${name}`);
  try {
    const password = (readFileSync(cfg.passwordFile, 'utf8').split(/\r?\n/)[0] ?? '').trim();
    if (!password) throw new BioSetupError(`the password file ${cfg.passwordFile} of ${cfg.name} is empty`);
    return { password, changedAt: statSync(cfg.passwordFile).mtimeMs, from: cfg.passwordFile };
  } catch (e) {
    if (e instanceof BioSetupError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new BioSetupError(
      `cannot read the password file ${cfg.passwordFile} of ${cfg.name} (${code}): it must be readable by the user punchgate runs as`,
    );
  }
}
