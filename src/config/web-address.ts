import { z } from 'zod';
import { notFourNumbers, zeroPaddedIPv4 } from './ip-words.js';

/**
 * The address of a server punchgate talks to (the HRMS, a sink, a Hikvision terminal, a BioTime
 * server). It never holds credentials: punchgate's HTTP client does not send a URL's
 * `user:password@` (so an HRMS behind basic auth would refuse every batch while the config looks
 * right), and an address is shown wherever its server is named (check, status, the page, logs).
 * The secret goes in the file its setting names. A proxy address (`hrms.proxy`) is not one of
 * these: its credentials are used, and kept out of every output (src/hrms/proxy.ts).
 */
/** Written with its scheme and `//` (`https://host`), not `host:port`, which URL reads as a scheme. */
export function hasScheme(address: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(address);
}

export function webAddress(shape: string, opts: { httpOnly?: boolean } = {}) {
  return (
    z
      .string()
      // `https://192.168.001.064` means 192.168.1.64, which the URL parser reads as octal (and
      // `...009` as no address at all): read as the menu means it before anything else.
      .transform(withPlainHost)
      .pipe(z.string())
      .refine(
        (s) =>
          (!opts.httpOnly && !hasScheme(s)) ||
          (URL.canParse(s) && (!opts.httpOnly || /^https?:$/.test(new URL(s).protocol))),
        opts.httpOnly ? 'must be an http:// or https:// URL' : `must be a URL such as ${shape}`,
      )
      // `hr.example.com:443` and `localhost:8080` parse as URLs of the schemes `hr.example.com:` and
      // `localhost:`, `192.168.1.10:8080` and `hr.example.com` parse as none: each is said as a
      // missing scheme with what was written (it was a bare "must be an https:// URL", the value not
      // shown, and then "must be a URL" for an address alone; found by new-user trials).
      .refine(
        (s) => opts.httpOnly === true || hasScheme(s),
        `must begin with its scheme and two slashes, such as ${shape}`,
      )
      // The host as written, before the URL parser reads `192.168.001.064` as 192.168.1.52.
      .superRefine((s, ctx) => {
        const said = hasScheme(s) ? notFourNumbers(writtenHost(s), s) : undefined;
        if (said) ctx.addIssue({ code: 'custom', message: said });
      })
      .refine(
        (s) => !URL.canParse(s) || (new URL(s).username === '' && new URL(s).password === ''),
        'must not hold a user name or password (user:password@): punchgate does not send them; put the secret in the file its setting names (tokenFile, passwordFile...) and write the address without it',
      )
  );
}

/** The address with a zero-padded IPv4 host (zeroPaddedIPv4) written plainly. */
function withPlainHost(address: string): string {
  const host = hasScheme(address) ? writtenHost(address) : '';
  const plain = zeroPaddedIPv4(host);
  return plain === undefined ? address : address.replace(host, plain);
}

/** The host of `scheme://[user@]host[:port]/...` as written (no IPv6 literal: none is digits and dots). */
function writtenHost(address: string): string {
  const authority = address.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0]!;
  return authority.slice(authority.lastIndexOf('@') + 1).replace(/:\d*$/, '');
}

/**
 * A server's address as punchgate shows it (check, messages): its origin and path, without a
 * query or fragment, which may hold a key (`?access_token=...`, a supported form of the HRMS's
 * address: issue 30) and were printed whole by check (found by an adversarial trial).
 */
export function addressShown(address: string): string {
  if (!URL.canParse(address)) return address.replace(/[?#].*$/s, '');
  const u = new URL(address);
  return `${u.origin}${u.pathname === '/' && !address.endsWith('/') ? '' : u.pathname}${u.search || u.hash ? '?(not shown)' : ''}`;
}
