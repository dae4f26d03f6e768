import { NOT_RESTARTED_WORDS, restartsItself, type JournalUnusableError } from '../journal/errors.js';
import { EXIT } from '../util/exit-codes.js';

/**
 * How `punchgate run` ends on a journal it cannot use. 75 (a temporary failure) for what is mended
 * outside punchgate and then goes on by itself (a full disk, a file system gone read-only): the unit
 * restarts it every 5 s. 74 for the rest (a damaged journal, another program's file, a file of
 * another user, its disk not mounted): each restart would stop again on it, so the unit lists 74 in
 * RestartPreventExitStatus= and the admin mends it, then starts punchgate. A one-shot command
 * exits 74 on either.
 */
export function runExitCode(e: JournalUnusableError): number {
  return restartsItself(e) ? EXIT.TEMPFAIL : EXIT.IOERR;
}

/**
 * The daemon's last line when the journal cannot be used any more, saying what systemd does next:
 * restarts it (a full disk freed, a disk remounted: it goes on by itself), or not, with what
 * starts it once mended (the restarts every 5 s of something a restart cannot help are over).
 */
export function fatalLine(e: JournalUnusableError): string {
  if (!restartsItself(e)) return `fatal: ${e.message}. ${NOT_RESTARTED_WORDS}`;
  return `fatal: ${e.message}; exiting (${EXIT.TEMPFAIL}) so that systemd restarts punchgate`;
}
