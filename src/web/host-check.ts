import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { ListenAddress } from '../config/listen.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/terminal-text.js';

/** Refused names logged (once each) at most: a flood of invented names cannot fill the log. */
const LOGGED_NAMES = 20;

/** hostRule, with each refused name logged once (as printable text: the header is the visitor's). */
export function hostGuard(
  listen: ListenAddress,
  allowedHosts: readonly string[],
  logger: Logger,
): (host: string | undefined) => boolean {
  const allowed = hostRule(listen, allowedHosts);
  const logged = new Set<string>();
  return (host) => {
    if (allowed(host)) return true;
    const shown = printable(host ?? '', 100);
    if (!logged.has(shown) && logged.size < LOGGED_NAMES) {
      logged.add(shown);
      logger.warn(
        { host: shown },
        'status page: refused a request for another name than localhost or the listen address (a web page rebinding its name to this box?); if the name is yours, add it to status.allowedHosts',
      );
    }
    return false;
  };
}

/**
 * Which `Host` names the status page answers without a token: the defence against DNS
 * rebinding. A web page from anywhere can make the admin's browser send requests to a name its
 * owner controls and then point that name at 127.0.0.1 (or at the box, or at the local end of
 * an SSH tunnel to it): the browser believes it talks to the attacker's site and hands the
 * answer to the attacker's script. Such a request carries the attacker's name in `Host`, so a
 * page that answers only to names that cannot be an attacker's is out of its reach:
 *
 * - loopback names: `localhost`, any `*.localhost` (RFC 6761, browsers resolve them to loopback
 *   themselves), `127.0.0.0/8`, `[::1]`;
 * - the address it listens on, and when it listens on every address (0.0.0.0, [::]) the box's
 *   own addresses and its host name (`punchgate-box`, `punchgate-box.local`);
 * - the names in `status.allowedHosts` (the name Prometheus or the admins use on the LAN).
 *
 * The port is not looked at: the rebinding page uses the same port as the real one. A request
 * without `Host` (HTTP/1.0, no browser sends one) is let in. With `status.authTokenFile` set
 * nothing of this applies: a request without the token is refused anyway.
 */
export function hostRule(
  listen: ListenAddress,
  allowedHosts: readonly string[] = [],
): (host: string | undefined) => boolean {
  const names = new Set(allowedHosts.map((h) => h.toLowerCase()));
  names.add(normalise(listen.host));
  if (!listen.loopback) {
    const box = hostname().toLowerCase();
    if (box) {
      names.add(box);
      names.add(`${box}.local`);
    }
    if (listen.host === '0.0.0.0' || listen.host === '::') {
      for (const list of Object.values(networkInterfaces()))
        for (const a of list ?? []) names.add(normalise(a.address.replace(/%.*$/, '')));
    }
  }
  return (header) => {
    if (header === undefined) return true;
    const name = hostName(header);
    if (name === undefined) return false;
    return isLoopbackName(name) || names.has(name);
  };
}

/** The name part of a `Host` header, lower case, IPv6 without brackets; undefined when it is not one. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::\d{1,5})?$/.exec(h);
  if (!m) return undefined;
  return normalise(m[1] ?? m[2]!.replace(/\.$/, ''));
}

function normalise(host: string): string {
  const h = host.toLowerCase();
  return isIP(h) === 6 ? h.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : h;
}

function isLoopbackName(name: string): boolean {
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '::1' ||
    (isIP(name) === 4 && name.startsWith('127.'))
  );
}
