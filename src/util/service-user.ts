import { readFileSync } from 'node:fs';

/** The account punchgate runs as (systemd/punchgate.sysusers, the package, the Docker image). */
export const SERVICE_USER = 'punchgate';

/**
 * The uid and gid of a local account, from /etc/passwd (Node has no getpwnam); undefined when the
 * account does not exist (yet: the package makes it) or the file cannot be read.
 */
export function localUser(name: string, passwd = '/etc/passwd'): { uid: number; gid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined && /^\d+$/.test(uid) && /^\d+$/.test(gid))
      return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}
