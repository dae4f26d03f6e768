/**
 * The fix told for a damaged journal (run, check, status, import, restore): how to save what it
 * still holds, then how to put that in the journal's place.
 *
 * Not `sqlite3 ... .recover`: the sqlite3 of Debian, Ubuntu and Raspberry Pi OS (3.40.1 on
 * bookworm) is built without the sqlite_dbpage table that `.recover` reads, so it fails with "SQL
 * logic error" on every file, and the pipe left an empty `.recovered` file that, put in the
 * journal's place, read as "empty (0 bytes) ... remove it and punchgate run makes a new one"
 * (found by a damaged-journal trial). `.dump` works in every sqlite3: it reads each table as far as
 * its pages allow, then in reverse from the other end, and ends with `ROLLBACK; -- due to errors`
 * when a page was damaged, which the sed turns back into COMMIT so that what it could read is
 * kept. It does not carry the journal's schema version (PRAGMA user_version), which the second
 * command copies. `punchgate restore --force` then puts it in place only if it passes SQLite's
 * integrity check and holds exactly punchgate's schema, keeps the damaged journal aside and
 * recounts the punches, where a plain `mv` would leave the damaged journal's -wal beside it.
 *
 * `-nofollow` (sqlite3 3.31 and later: Debian 11, Ubuntu 20.04 on) on every open: the commands
 * are run as root in the service user's folder, which may put a link at the new file's name after
 * the `rm` (the later commands open it again by name). Followed, root's sqlite3 made a database at
 * the path the link named, or wrote into a root database there (found by an adversarial trial).
 */
export function recoverFix(path: string): string {
  const recovered = `${path}.recovered`;
  return (
    `stop punchgate, keep a copy of the file (it may hold punches not yet delivered), recover what it holds into a new file (apt-get install sqlite3): ` +
    `rm -f ${recovered}; sqlite3 -nofollow ${path} .dump | sed '$s/^ROLLBACK; -- due to errors$/COMMIT;/' | sqlite3 -nofollow ${recovered}; ` +
    `sqlite3 -nofollow ${recovered} "PRAGMA user_version = $(sqlite3 -nofollow ${path} 'PRAGMA user_version')", ` +
    `then put it in place: punchgate restore --force ${recovered} (it checks the file first); ` +
    `or restore the newest backup: punchgate restore --force FILE`
  );
}
