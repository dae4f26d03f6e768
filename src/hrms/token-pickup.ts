import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { localUser, SERVICE_USER } from '../util/service-user.js';

/*
 * How a new HRMS token takes effect, in one set of words for the log and `punchgate check`. The
 * shipped unit (systemd/punchgate.service) has LoadCredential=token:/etc/punchgate/token, but
 * punchgate reads the file itself first and re-reads it when it changes (token.ts): no restart.
 * systemd's copy is made once at start and is read only when the service cannot read the file
 * (0600 root): only then does a new token need a restart. `check` said "systemctl restart" for
 * every refused token, against install.md, troubleshooting.md, the status and the log (a trial).
 */

/** Whether `file` (where the token is read from) is systemd's copy, made at start. */
export function isStartCopy(file: string | undefined, env: NodeJS.ProcessEnv): boolean {
  return (
    file !== undefined && env.CREDENTIALS_DIRECTORY !== undefined && file === join(env.CREDENTIALS_DIRECTORY, 'token')
  );
}

/**
 * Whether the service account can read `file`, from its mode and owner; undefined when that cannot
 * be told (no such account: punchgate runs as whoever started it; or the file cannot be examined).
 */
export function serviceCanRead(file: string, passwd?: string): boolean | undefined {
  const user = localUser(SERVICE_USER, passwd);
  if (!user) return undefined;
  try {
    const st = statSync(file);
    if (user.uid === 0 || (st.uid === user.uid && st.mode & 0o400)) return true;
    if (st.gid === user.gid && st.mode & 0o040) return true;
    return (st.mode & 0o004) !== 0;
  } catch {
    return undefined;
  }
}

/** The file the shipped unit's `LoadCredential=token:` copies at start (systemd/punchgate.service). */
export const UNIT_TOKEN_FILE = '/etc/punchgate/token';

/**
 * Whether a new token in `file` takes a restart: it is systemd's copy made at start, or the file that
 * copy is made of and the service account cannot read it. Any other file is no copy's source:
 * `check` told a rehearsal's own token file (root 0600, on a box where the package made the service
 * account) "systemctl restart punchgate, as the service reads the copy LoadCredential= made", which
 * was of another file, and the rehearsal's `punchgate run` re-read it (found by a rehearsal).
 */
export function readFromStartCopy(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  o: { passwd?: string; unitTokenFile?: string } = {},
): boolean {
  if (file === undefined) return false;
  if (isStartCopy(file, env)) return true;
  return resolve(file) === (o.unitTokenFile ?? UNIT_TOKEN_FILE) && serviceCanRead(file, o.passwd) === false;
}

/** What follows "put a valid token in ...": re-read without a restart, or, read from systemd's copy, a restart. */
export function tokenPickup(fromStartCopy: boolean, file?: string): string {
  if (!fromStartCopy) return 'punchgate run re-reads it without a restart';
  const it = file
    ? `${file} (it cannot read it, so it reads the copy LoadCredential= made at its start)`
    : 'the token file (it reads the copy LoadCredential= made at its start)';
  return `then sudo systemctl restart punchgate, as the service does not re-read ${it}; or make the file readable by the service (root:punchgate 0640) and it is re-read without a restart`;
}
