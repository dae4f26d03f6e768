import type { JournalUnusableError } from '../journal/errors.js';

/** Damage that no restart mends: the file must be recovered or restored by hand (errors.ts's fix). */
const DAMAGE = /^SQLITE_(CORRUPT|NOTADB)/;

/**
 * The daemon's last line when the journal cannot be used any more. A full disk, a read-only mount
 * or a file of another user is mended outside punchgate, and the next start (the unit restarts it
 * every 5 s) then goes on by itself. A damaged file is not: each restart stops again on it (at
 * once, or at the first read of a damaged page), so the line said "exiting so that systemd
 * restarts punchgate" of something a restart cannot help. It now says what is true, and that
 * `systemctl stop` ends the restarts while the file is mended.
 */
export function fatalLine(e: JournalUnusableError): string {
  if (e.code !== undefined && DAMAGE.test(e.code))
    return `fatal: ${e.message}. A restart does not mend a damaged journal: systemd starts punchgate again every 5 s and it stops again, until the file is recovered or restored (sudo systemctl stop punchgate first, then sudo systemctl start punchgate once it is mended)`;
  return `fatal: ${e.message}; exiting so that systemd restarts punchgate`;
}
