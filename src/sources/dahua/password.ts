import { readFileSync, statSync } from 'node:fs';
import { terminalPasswordEnv, type DahuaTerminalConfig } from '../../config/terminals.js';
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
  const name = terminalPasswordEnv(cfg.name);
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== '') return { password: fromEnv, changedAt: null, from: name };
  if (!cfg.passwordFile)
    throw new DahuaSetupError(`no password for ${cfg.name}: set passwordFile, or the environment variable ${name}`);
  try {
    const password = (readFileSync(cfg.passwordFile, 'utf8').split(/\r?\n/)[0] ?? '').trim();
    if (!password) throw new DahuaSetupError(`the password file ${cfg.passwordFile} of ${cfg.name} is empty`);
    return { password, changedAt: statSync(cfg.passwordFile).mtimeMs, from: cfg.passwordFile };
  } catch (e) {
    if (e instanceof DahuaSetupError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new DahuaSetupError(
      `cannot read the password file ${cfg.passwordFile} of ${cfg.name} (${code}): it must be readable by the user punchgate runs as`,
    );
  }
}
