import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The seam between the push receiver (src/sources/adms, the one HTTP port terminals post to) and
 * the sources of terminals that post their events in their own vendor's format (Hikvision HTTP
 * Listening): the receiver hands each POST to a listened path to the endpoint registered there,
 * and knows nothing of its format; the endpoint knows nothing of the receiver. Neither folder
 * imports the other.
 */

/** One POST to a listened path, as the receiver hands it over (body not read yet). */
export interface ListenedPost {
  req: IncomingMessage;
  res: ServerResponse;
  /** The sender's address (an IPv4 client on a dual-stack socket as plain IPv4). */
  address: string;
}

/** What answers the posts to one path: the endpoint of one terminal. */
export interface ListenEndpoint {
  /** The terminal's name (for the receiver's log). */
  readonly terminal: string;
  /** Reads the post, keeps what it carries and answers it; never rejects for the sender's faults. */
  handle(post: ListenedPost): Promise<void>;
}

/** Where endpoints are registered: the push receiver, when `adms.listen` is set. */
export interface ListenRegistry {
  addListened(path: string, endpoint: ListenEndpoint): void;
  /** Removes the endpoint (only if it is still the one at that path). */
  removeListened(path: string, endpoint: ListenEndpoint): void;
}

/** Where a terminal of `kind` posts: `/listen/hikvision/gate-1` (its name in lower case, escaped). */
export function listenPath(kind: string, terminal: string): string {
  return `/listen/${kind}/${encodeURIComponent(terminal.toLowerCase())}`;
}

/** The key a request's path is looked up by (paths compare without regard to case). */
export function listenKey(pathname: string): string {
  return pathname.toLowerCase().replace(/\/+$/, '');
}
