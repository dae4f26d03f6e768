/**
 * Errors of the ZK client. Messages name the peer (host:port) and the command,
 * never the comm key.
 */

/** Malformed bytes from the peer, or a reply code the operation cannot use. */
export class ZkProtocolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkProtocolError';
  }
}

/**
 * A piece (chunk) of a download not as the terminal announced it, as a lossy link leaves it: its
 * ACK_OK came before all its bytes (a datagram lost), or it carried more (one delivered twice).
 * The client asks for it again; this is thrown when it came so at every try (`tries`).
 */
export class ZkChunkNotWholeError extends ZkProtocolError {
  /** Times the piece was asked for when the error was thrown (1 while still trying). */
  tries = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkChunkNotWholeError';
  }
}

/**
 * The terminal answered the download request (DATA_WRRQ) with a code that hands nothing over
 * (ACK_ERROR, or one of its own): it speaks ZK, it just will not give that dataset. Push-only
 * firmware does so for its attendance log (a SpeedFace-H5L with ZAM180 Ver 3.3.2 answered
 * DATA_WRRQ(ATTLOG_RRQ) with 4989 while it gave its counts and users: fananimi/pyzk issue #170).
 */
export class ZkDownloadRefusedError extends ZkProtocolError {
  /** The code the terminal answered DATA_WRRQ with. */
  readonly replyCode: number;
  /** The read command refused (ATTLOG_RRQ 13, USERTEMP_RRQ 9...). */
  readonly readCommand: number;
  constructor(message: string, replyCode: number, readCommand: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkDownloadRefusedError';
    this.replyCode = replyCode;
    this.readCommand = readCommand;
  }
}

/** An exchange got no (complete) reply in time; the connection has been torn down. */
export class ZkTimeoutError extends Error {
  /** Packets the terminal sent meanwhile that answered no request of ours (another reply id). */
  readonly strays: number;
  /** Bytes the peer sent meanwhile that were no ZK packet, none being one (see ZkTransport.noise). */
  readonly noise: number;
  /** Part of the answer had come (a packet of it, or bytes of one) before it stopped. */
  readonly partWay: boolean;
  /** Packets with the reply id awaited but another session's id (not taken: ZkExchange.fromSession). */
  readonly foreign: number;
  constructor(
    message: string,
    options?: { cause?: unknown; strays?: number; noise?: number; partWay?: boolean; foreign?: number },
  ) {
    super(message, options);
    this.name = 'ZkTimeoutError';
    this.foreign = options?.foreign ?? 0;
    this.strays = options?.strays ?? 0;
    this.noise = options?.noise ?? 0;
    this.partWay = options?.partWay ?? false;
  }
}

/** The terminal refused the comm key (or requires one and none was configured). */
export class ZkAuthError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkAuthError';
  }
}

/** The connection could not be opened, or closed/failed while an operation needed it. */
export class ZkConnectionError extends Error {
  /** The Node error code when a socket error caused it (ECONNREFUSED, ECONNRESET...). */
  readonly code: string | undefined;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options);
    this.name = 'ZkConnectionError';
    this.code = options?.code;
  }
}

/**
 * A request answered ACK_UNAUTH ("connection not authorized") in a session the terminal had opened:
 * not a comm key refused (no key was refused: the login, when asked, was accepted). Firmware that
 * opens the session without asking for the login but wants it before it hands anything over is
 * logged in then and asked again (see ZkClient); `loggedIn` says the session had logged in, so the
 * terminal ended it: another program took it over, or the terminal restarted.
 */
export class ZkUnauthorizedError extends ZkAuthError {
  /** The session had logged in (AUTH accepted) when the terminal said so. */
  loggedIn = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkUnauthorizedError';
  }
}

/**
 * The terminal answered CONNECT with a code of neither the old protocol's answers (ACK_OK, or
 * ACK_UNAUTH asking for the comm key), as 2025+ firmware does (6001: MB10-VL, MB460 Plus,
 * SenseFace 3A ZAM70 Ver3.3.12; pyzk issue #253), and then refused the comm key login too.
 */
export class ZkConnectRefusedError extends ZkAuthError {
  /** The code the terminal answered CONNECT with. */
  readonly connectReply: number;
  constructor(message: string, connectReply: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZkConnectRefusedError';
    this.connectReply = connectReply;
  }
}
