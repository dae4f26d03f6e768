/**
 * What can go wrong talking to a Hikvision device, as errors whose messages a site admin can act
 * on. None of them ever carries the password (Digest sends only hashes of it).
 */

/** The device refused the password, or has locked the account after repeated failures. */
export class HikAuthError extends Error {
  constructor(
    message: string,
    /** The device says the account is locked (until `unlockSeconds` from now, when it says). */
    readonly locked: boolean,
    readonly unlockSeconds?: number,
    /** Tries the device still allows before it locks the account, when it says. */
    readonly triesLeft?: number,
  ) {
    super(message);
    this.name = 'HikAuthError';
  }
}

/**
 * The device answered every login try with a new nonce marked stale: it never said the password
 * was wrong, yet none got in (its clock, its session table). A password was sent, so it is kept
 * as a refusal (the same wait); only the words differ.
 */
export class HikStaleNonceError extends HikAuthError {
  constructor(message: string) {
    super(message, false);
    this.name = 'HikStaleNonceError';
  }
}

/**
 * The device asks for a login punchgate cannot answer (Basic only, or a Digest algorithm it does
 * not know). No password was sent: it is not a refused password, and counts towards no lock.
 */
export class HikChallengeError extends Error {
  constructor(
    message: string,
    /** What the device offered, e.g. `Digest algorithm=SHA-512-256` (no secret: the device's words). */
    readonly offered: string,
  ) {
    super(message);
    this.name = 'HikChallengeError';
  }
}

/** The TLS handshake failed our checks: the pinned fingerprint, the CA, or the system's trust. */
export class HikTlsError extends Error {
  constructor(
    message: string,
    /** SHA-256 fingerprint the device presented, when known (`AB:CD:...`). */
    readonly fingerprint?: string,
  ) {
    super(message);
    this.name = 'HikTlsError';
  }
}

/** The device could not be reached or stopped answering (code: ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT...). */
export class HikConnectionError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HikConnectionError';
  }
}

/**
 * The device answered the request with an error: an HTTP error status and/or an ISAPI
 * ResponseStatus (`statusCode` 4 "Invalid Operation", 6 "Invalid Content", `subStatusCode`
 * such as notSupport or badParameters).
 */
export class HikApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly subStatusCode?: string,
  ) {
    super(message);
    this.name = 'HikApiError';
  }

  /** The device does not know the request (an older firmware, or a model without it). */
  get unsupported(): boolean {
    return (
      this.httpStatus === 404 ||
      this.httpStatus === 405 ||
      this.httpStatus === 501 ||
      /notsupport|invalidoperation|methodnotallowed/i.test(this.subStatusCode ?? '')
    );
  }
}

/** Node cannot run the HTTP client at all (WebAssembly switched off by --jitless). */
export class HikSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HikSetupError';
  }
}
