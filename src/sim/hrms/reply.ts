/** An answer the router writes: status, JSON (or raw text) body, extra headers, a log summary. */
export interface Reply {
  httpStatus: number;
  body: unknown;
  /** Send `body` as is (a string) instead of JSON. */
  raw?: { contentType: string };
  headers?: Record<string, string>;
  /** Appended to the request's log line. */
  summary?: string;
}

/** The seed's failure object: status false plus a message. */
export function failure(httpStatus: number, message: string, headers?: Record<string, string>): Reply {
  return { httpStatus, body: { status: false, message }, headers, summary: message };
}
