import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { readPasswordOf, type PasswordRead } from '../terminal-password.js';
import { HikSetupError } from './errors.js';

/** A terminal's password and when it last changed (a file's modification time; null from the environment). */
export type TerminalPassword = PasswordRead;

/**
 * The password of a Hikvision terminal: `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else
 * the first line of `passwordFile`. Read at each poll, so a corrected file is used at once.
 */
export function readTerminalPassword(
  cfg: Pick<HikvisionTerminalConfig, 'name' | 'passwordFile'>,
  env: NodeJS.ProcessEnv = process.env,
): TerminalPassword {
  return readPasswordOf(cfg, env, (m) => new HikSetupError(m));
}

/** For messages: where the password is to be fixed. */
export function passwordPlace(pw: TerminalPassword): { file: string } | { env: string } {
  return pw.fromEnv ? { env: pw.from } : { file: pw.from };
}
