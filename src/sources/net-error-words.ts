/**
 * The words for a failed connection that are the same whatever the device: Node's (and undici's)
 * error codes said in plain words naming the peer. Each source adds the words that name its own
 * settings (where to look when nothing listens, when TLS is not spoken) and its error class.
 */

/** The name could not be resolved, no route, a reset: said the same for every device. */
export function routeWords(peer: string): Record<string, string> {
  return {
    ENOTFOUND: `cannot resolve the host name of ${peer} (ENOTFOUND)`,
    EAI_AGAIN: `cannot resolve the host name of ${peer} (EAI_AGAIN)`,
    EHOSTUNREACH: `no route to ${peer} (EHOSTUNREACH)`,
    ENETUNREACH: `no route to ${peer} (ENETUNREACH)`,
    ECONNRESET: `${peer} closed the connection (ECONNRESET)`,
  };
}

/** undici's time-outs and closed sockets, for the sources that speak through undici. */
export function undiciWords(peer: string, timeoutMs: number): Record<string, string> {
  const seconds = `${Math.round(timeoutMs / 100) / 10} s`;
  return {
    UND_ERR_CONNECT_TIMEOUT: `no answer from ${peer} within ${seconds} (connect)`,
    UND_ERR_HEADERS_TIMEOUT: `no answer from ${peer} within ${seconds}`,
    UND_ERR_BODY_TIMEOUT: `${peer} stopped sending its answer for ${seconds}`,
    UND_ERR_SOCKET: `${peer} closed the connection`,
  };
}

/** The words for `e` from `words` by its code, else the error's own message with the peer and code. */
export function netErrorText(e: unknown, peer: string, words: Record<string, string>): { text: string; code: string } {
  const err = e as { code?: string; message?: string };
  const code = err.code ?? '';
  return { text: words[code] ?? `${peer}: ${err.message ?? String(e)}${code ? ` (${code})` : ''}`, code };
}
