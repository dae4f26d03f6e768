/**
 * What can go wrong talking to a ZKBioTime server, as errors whose messages a site admin can act
 * on. None of them ever carries the password or the token.
 */

/** The server could not be reached, stopped answering, or broke a bound (code says which). */
export class BioConnectionError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'BioConnectionError';
  }
}

/** The server refused the account's username and password (at the token endpoint). */
export class BioAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BioAuthError';
  }
}

/**
 * The server answers the API with a refusal that only its owner can lift: its licence has no API
 * (403 `IsNotOpenAPI` and the like), or the account may not read transactions.
 */
export class BioRefusedError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The server's own words, quoted (cut short). */
    readonly said: string,
  ) {
    super(message);
    this.name = 'BioRefusedError';
  }
}

/** Any other answer that is not what the API answers (HTTP 5xx, a page that is not JSON...). */
export class BioApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'BioApiError';
  }
}

/** Not the server's fault: this box cannot read the password, or runs without WebAssembly. */
export class BioSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BioSetupError';
  }
}
