import { readFileSync, statSync } from 'node:fs';
import { terminalPasswordEnv, type HikvisionTerminalConfig } from '../../config/terminals.js';
import { HikSetupError } from './errors.js';

/** A terminal's password and when it last changed (a file's modification time; null from the environment). */
export interface TerminalPassword {
  password: string;
  changedAt: number | null;
  /** Where it came from, for messages (never the value): the file, or the environment variable. */
  from: string;
  fromEnv: boolean;
}

/**
 * The password of a Hikvision terminal: `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else
 * the first line of `passwordFile`. Read at each poll, so a corrected file is used at once.
 */
export function readTerminalPassword(
  cfg: Pick<HikvisionTerminalConfig, 'name' | 'passwordFile'>,
  env: NodeJS.ProcessEnv = process.env,
): TerminalPassword {
  const name = terminalPasswordEnv(cfg.name);
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== '') return { password: fromEnv, changedAt: null, from: name, fromEnv: true };
  if (!cfg.passwordFile) {
    throw new HikSetupError(`no password for ${cfg.name}: set passwordFile, or the environment variable ${name}`);
  }
  try {
    const password = (readFileSync(cfg.passwordFile, 'utf8').split(/\r?\n/)[0] ?? '').trim();
    if (!password) throw new HikSetupError(`the password file ${cfg.passwordFile} of ${cfg.name} is empty`);
    return { password, changedAt: statSync(cfg.passwordFile).mtimeMs, from: cfg.passwordFile, fromEnv: false };
  } catch (e) {
    if (e instanceof HikSetupError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new HikSetupError(
      `cannot read the password file ${cfg.passwordFile} of ${cfg.name} (${code}): it must be readable by the user punchgate runs as`,
    );
  }
}

/** For messages: where the password is to be fixed. */
export function passwordPlace(pw: TerminalPassword): { file: string } | { env: string } {
  return pw.fromEnv ? { env: pw.from } : { file: pw.from };
}
