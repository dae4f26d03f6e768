import {
  isJournalDamage,
  JOURNAL_DAMAGED_RUN_EXIT,
  NOT_RESTARTED_WORDS,
  type JournalUnusableError,
} from '../journal/errors.js';
import { EXIT } from '../util/exit-codes.js';

/**
 * How `punchgate run` ends on a journal it cannot use. 74 for what is mended outside punchgate (a
 * full disk, a read-only mount, a file of another user): the unit restarts it every 5 s and it goes
 * on by itself. 65 (EX_DATAERR, as for a damaged backup) for a damaged journal: each restart stops
 * again on it, so the unit lists 65 in RestartPreventExitStatus= and the restarts end; the admin
 * mends the file and starts punchgate. Both a one-shot command's 74 otherwise.
 */
export function runExitCode(e: JournalUnusableError): number {
  return isJournalDamage(e) ? JOURNAL_DAMAGED_RUN_EXIT : EXIT.IOERR;
}

/**
 * The daemon's last line when the journal cannot be used any more. A full disk, a read-only mount
 * or a file of another user is mended outside punchgate, and the next start (the unit restarts it
 * every 5 s) then goes on by itself. A damaged file is not: each restart stops again on it (at
 * once, or at the first read of a damaged page), so the line said "exiting so that systemd
 * restarts punchgate" of something a restart cannot help. It now says what is true, and that
 * `systemctl stop` ends the restarts while the file is mended. Since its exit is 65 (runExitCode),
 * which the unit does not restart, it says so, and how to start punchgate once mended.
 */
export function fatalLine(e: JournalUnusableError): string {
  if (isJournalDamage(e)) return `fatal: ${e.message}. ${NOT_RESTARTED_WORDS}`;
  return `fatal: ${e.message}; exiting so that systemd restarts punchgate`;
}
