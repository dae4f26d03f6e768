import { isIPv4, isIPv6 } from 'node:net';

/** Where the status page listens: `status.listen` taken apart. */
export interface ListenAddress {
  /** As given to `server.listen` (IPv6 without brackets). */
  host: string;
  port: number;
  /** Only this machine can connect (127.0.0.0/8, ::1, localhost). */
  loopback: boolean;
}

export const DEFAULT_STATUS_LISTEN = '127.0.0.1:9330';
export const LISTEN_FORMAT = 'must be HOST:PORT such as 127.0.0.1:9330, 0.0.0.0:9330 or [::]:9330, or false';

/**
 * Parses `HOST:PORT` (IPv4, `[IPv6]` or `localhost`); a string is the problem when it cannot.
 * `format`: the words of the key's form, with its own examples (`adms.listen` was told of 9330,
 * the status page's port, and of `false`, which it does not take: a new-user trial).
 */
export function parseListen(text: string, format = LISTEN_FORMAT): ListenAddress | string {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return format;
  const port = Number(m[3]);
  if (port > 65535) return `port ${port} is out of range (0-65535)`;
  const v6 = m[1];
  const host = v6 ?? m[2]!;
  if (v6 !== undefined ? !isIPv6(host) : !isIPv4(host) && host !== 'localhost') {
    return `"${host}" is not an IP address: ${format}`;
  }
  const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return { host, port, loopback };
}

const WILDCARDS = new Set(['0.0.0.0', '::']);
const LOOPBACK_NAMES = new Map([['localhost', ['127.0.0.1', '::1']]]);

/**
 * Whether two listeners cannot both have their address: one port (0 is a free port chosen by the
 * system, never shared) and the same address, or a wildcard address (0.0.0.0, ::) on either side,
 * which takes the port on every address of the box.
 */
export function listenersCollide(a: ListenAddress, b: ListenAddress): boolean {
  if (a.port !== b.port || a.port === 0) return false;
  if (WILDCARDS.has(a.host) || WILDCARDS.has(b.host)) return true;
  const hosts = (l: ListenAddress) => LOOPBACK_NAMES.get(l.host) ?? [l.host];
  return hosts(a).some((h) => hosts(b).includes(h));
}
