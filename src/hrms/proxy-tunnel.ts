import { Client, Pool, type Connector, type Dispatcher } from './undici.js';

/**
 * The CONNECT tunnel through a proxy, made punctual and final. undici's ProxyAgent opens the tunnel
 * in its own connector, which has two holes a hostile network finds:
 * - a proxy that takes the connection and never answers the CONNECT holds it for undici's five
 *   minute headers timeout, past the request's deadline, with the batch unsettled;
 * - a proxy that closes the connection before answering gives undici a "socket closed" error, which
 *   it takes for a connection to retry at once: it connects again and again (thousands of times a
 *   second) and the request never fails.
 * This wraps that connector: the tunnel (CONNECT and the HRMS's TLS inside it) must be open within
 * the connect timeout, and a proxy that closes first is a failure of its own code (PROXY_CLOSED),
 * which fails the waiting request instead of starting the loop. Nothing reached the HRMS in either
 * case.
 */
export const PROXY_CLOSED = 'PROXY_CLOSED';
export const PROXY_CLOSED_WORDS = 'the proxy closed the connection before opening a tunnel to the HRMS';

/** undici's error code for a socket closed under it (client.js retries the connection on it). */
const SOCKET_CLOSED = 'UND_ERR_SOCKET';

/** ProxyAgent's `factory`: the default pool or client, with its tunnel connector wrapped. */
export function punctualTunnelFactory(timeoutMs: number) {
  return (origin: string | URL, opts: object): Dispatcher => {
    const options = opts as { connections?: number | null; connect?: unknown };
    const connect =
      typeof options.connect === 'function' ? punctualTunnel(options.connect as Connector, timeoutMs) : options.connect;
    const withTunnel = { ...options, connect } as ConstructorParameters<typeof Pool>[1];
    return options.connections === 1 ? new Client(origin, withTunnel) : new Pool(origin, withTunnel);
  };
}

/** The tunnel connector within `timeoutMs`, its "socket closed" made final. */
export function punctualTunnel(connect: Connector, timeoutMs: number): Connector {
  return (opts, callback) => {
    let settled = false;
    // ProxyAgent passes `signal` on to its CONNECT request: aborting it closes the proxy's connection.
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      ctl.abort();
      const err = Object.assign(new Error(`connect timeout after ${timeoutMs} ms`), {
        code: 'UND_ERR_CONNECT_TIMEOUT',
      });
      callback(err, null);
    }, timeoutMs);
    connect({ ...opts, signal: ctl.signal } as Parameters<Connector>[0], (err, socket) => {
      if (settled) {
        socket?.destroy();
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (err && (err as { code?: unknown }).code === SOCKET_CLOSED)
        callback(Object.assign(new Error(PROXY_CLOSED_WORDS), { code: PROXY_CLOSED, cause: err }), null);
      else if (err) callback(err, null);
      else callback(null, socket!);
    });
  };
}
