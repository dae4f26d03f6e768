import type { IncomingMessage, ServerResponse } from 'node:http';

/** Whether the request announced a body (a GET of the protocol has none). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Sends a plain-text answer. An answer given before the body was read in full also closes the
 * connection, so a client cannot keep feeding a body nobody reads.
 */
export function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  /** Text (sent in UTF-8), or bytes already in the character set `headers` name. */
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const close = hasBody(req) && !req.complete;
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(text.length),
    ...(close ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(text);
  if (close) res.once('finish', () => req.socket.destroySoon());
}
