/** sysexits.h codes, so that systemd and scripts can tell failures apart. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  /** A command typed wrong: an unknown option, a missing or bad argument (sysexits EX_USAGE). */
  USAGE: 64,
  /**
   * Bad input lines (some were skipped), a damaged backup; and `punchgate run` stopped by a damaged
   * journal, which the unit does not restart (daemon/fatal-line.ts).
   */
  DATAERR: 65,
  /** An input file cannot be read. */
  NOINPUT: 66,
  /** The journal cannot be used (missing, empty, not a journal, damaged, unwritable, disk full). */
  IOERR: 74,
  /** A temporary failure: try again later. */
  TEMPFAIL: 75,
  /** Permission refused (the HRMS refused the token). */
  NOPERM: 77,
  /** Bad configuration. */
  CONFIG: 78,
} as const;

/** An error that carries the exit code the CLI should end with. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}
