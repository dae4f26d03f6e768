import { readFileSync, statSync } from 'node:fs';
import { terminalPasswordEnv } from '../config/terminals.js';

/** A terminal's password and when it last changed (a file's modification time; null from the environment). */
export interface PasswordRead {
  password: string;
  changedAt: number | null;
  /** Where it came from, for messages (never the value): the file, or the environment variable. */
  from: string;
  fromEnv: boolean;
}

/**
 * The password of an HTTP terminal (Dahua, Hikvision) or a BioTime server:
 * `PUNCHGATE_TERMINAL_<NAME>_PASSWORD` when set, else the first line of `passwordFile`. Read at
 * each poll, so a corrected file is used at once. A missing, empty or unreadable file is thrown as
 * the source's own setup error (`setupError`), in words that name the file and the fix, never the
 * password.
 */
export function readPasswordOf(
  cfg: { name: string; passwordFile?: string },
  env: NodeJS.ProcessEnv,
  setupError: (message: string) => Error,
): PasswordRead {
  const name = terminalPasswordEnv(cfg.name);
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== '') return { password: fromEnv, changedAt: null, from: name, fromEnv: true };
  const file = cfg.passwordFile;
  if (!file) throw setupError(`no password for ${cfg.name}: set passwordFile, or the environment variable ${name}`);
  const unreadable = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    return setupError(
      `cannot read the password file ${file} of ${cfg.name} (${code}): it must be readable by the user punchgate runs as`,
    );
  };
  let password: string;
  try {
    password = (readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '').trim();
  } catch (e) {
    throw unreadable(e);
  }
  if (!password) throw setupError(`the password file ${file} of ${cfg.name} is empty`);
  try {
    return { password, changedAt: statSync(file).mtimeMs, from: file, fromEnv: false };
  } catch (e) {
    throw unreadable(e);
  }
}
