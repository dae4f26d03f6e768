/**
 * What can go wrong talking to a Dahua device, as errors whose messages a site admin can act on.
 * None of them ever carries the password (Digest sends only hashes of it).
 */

/** The device refused the password (or has locked the account). */
export class DahuaAuthError extends Error {
  constructor(
    message: string,
    readonly locked = false,
  ) {
    super(message);
    this.name = 'DahuaAuthError';
  }
}

/**
 * The device answered every login try with a new nonce marked stale: it never said the password
 * was wrong, yet none got in (its clock, its session table). A password was sent, so it is kept
 * as a refusal (the same wait); only the words differ.
 */
export class DahuaStaleNonceError extends DahuaAuthError {
  constructor(message: string) {
    super(message, false);
    this.name = 'DahuaStaleNonceError';
  }
}

/**
 * The device asks for a login punchgate cannot answer (Basic only, a Digest algorithm it does not
 * know). No password was sent: not a refused password, and it counts towards no wait.
 */
export class DahuaChallengeError extends Error {
  constructor(
    message: string,
    /** What the device offered, e.g. `Digest algorithm=SHA-512-256` (the device's words, no secret). */
    readonly offered: string,
  ) {
    super(message);
    this.name = 'DahuaChallengeError';
  }
}

/** The device could not be reached, stopped answering, or sent more than an answer may hold. */
export class DahuaConnectionError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DahuaConnectionError';
  }
}

/** The device answered, but with an error (`Error\r\nBad Request!`, an HTTP error) or not in its format. */
export class DahuaApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'DahuaApiError';
  }

  /** The firmware does not know the request (an older firmware, or a model without it). */
  get unsupported(): boolean {
    return this.httpStatus === 400 || this.httpStatus === 404 || this.httpStatus === 405 || this.httpStatus === 501;
  }
}

/** Only the admin can fix it: no password configured, an unreadable password file. */
export class DahuaSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DahuaSetupError';
  }
}
