import { createHash, randomBytes } from 'node:crypto';

/**
 * HTTP Digest authentication (RFC 7616 with SHA-256, and RFC 2617's MD5 that most devices use) as a
 * client computes it. Only hashes of the password leave the process, never the password.
 */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  /** MD5 (the devices' choice), MD5-sess, SHA-256 or SHA-256-sess. */
  algorithm: string;
  /** The qop we answer with: 'auth', or undefined when the server offered none (RFC 2069). */
  qop?: 'auth';
  /** The server says our nonce expired: answer again with the new one, the password was right. */
  stale: boolean;
}

const HASHES: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256' };

/** Splits `a="x, y", b=z` into parameters (quoted strings may hold commas and escaped quotes). */
function parseParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
  }
  return out;
}

/**
 * The Digest challenge of a 401's WWW-Authenticate header(s), or undefined when there is none
 * or it asks for something we do not speak (qop auth-int only, an unknown algorithm).
 */
export function parseDigestChallenge(header: string | string[] | undefined): DigestChallenge | undefined {
  const headers = Array.isArray(header) ? header : header === undefined ? [] : [header];
  // RFC 7616 section 3.7: a server may offer several challenges (Dahua firmware sends SHA-256 and
  // MD5 side by side); the client answers the strongest it speaks.
  const offered = headers.flatMap(splitChallenges).map(parseOneChallenge);
  return offered.find((c) => c?.algorithm.startsWith('SHA-256')) ?? offered.find((c) => c !== undefined);
}

/** One header may carry several challenges (`Digest ..., Digest ...`): each from its `Digest`. */
function splitChallenges(h: string): string[] {
  const out: string[] = [];
  const re = /(^|[\s,])Digest\s/gi;
  const starts: number[] = [];
  for (let m = re.exec(h); m; m = re.exec(h)) starts.push(m.index);
  for (const [i, at] of starts.entries()) out.push(h.slice(at, starts[i + 1] ?? h.length));
  return out;
}

function parseOneChallenge(h: string): DigestChallenge | undefined {
  // Several schemes may share one header ("Basic realm=..., Digest realm=..."): take Digest's part.
  const at = h.search(/(^|[\s,])Digest\s/i);
  if (at < 0) return undefined;
  const rest = h.slice(at).replace(/^[\s,]*Digest\s+/i, '');
  const next = rest.search(/,\s*(Basic|Bearer|Negotiate)\s/i);
  const p = parseParams(next >= 0 ? rest.slice(0, next) : rest);
  const nonce = p.get('nonce');
  if (nonce === undefined) return undefined;
  const algorithm = (p.get('algorithm') ?? 'MD5').toUpperCase();
  if (!(algorithm.replace(/-SESS$/, '') in HASHES)) return undefined;
  const qops = p
    .get('qop')
    ?.split(',')
    .map((q) => q.trim().toLowerCase());
  if (qops && !qops.includes('auth')) return undefined;
  return {
    realm: p.get('realm') ?? '',
    nonce,
    opaque: p.get('opaque'),
    algorithm,
    qop: qops ? 'auth' : undefined,
    stale: (p.get('stale') ?? '').toLowerCase() === 'true',
  };
}

export interface DigestRequest {
  username: string;
  password: string;
  method: string;
  /** The request target as sent: path and query. */
  uri: string;
  /** Requests answered with this nonce so far, this one included (1 for the first). */
  nc: number;
  /** Tests pin it; otherwise random. */
  cnonce?: string;
}

function quote(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`;
}

/** The response hash of RFC 7616 section 3.4.1. */
export function digestResponse(c: DigestChallenge, r: Required<DigestRequest>): string {
  const sess = c.algorithm.endsWith('-SESS');
  const name = HASHES[c.algorithm.replace(/-SESS$/, '')]!;
  const h = (s: string) => createHash(name).update(s, 'utf8').digest('hex');
  const nc = r.nc.toString(16).padStart(8, '0');
  let ha1 = h(`${r.username}:${c.realm}:${r.password}`);
  if (sess) ha1 = h(`${ha1}:${c.nonce}:${r.cnonce}`);
  const ha2 = h(`${r.method}:${r.uri}`);
  return c.qop ? h(`${ha1}:${c.nonce}:${nc}:${r.cnonce}:${c.qop}:${ha2}`) : h(`${ha1}:${c.nonce}:${ha2}`);
}

/** The Authorization header value answering challenge `c` for one request. */
export function digestAuthorization(c: DigestChallenge, req: DigestRequest): string {
  const r: Required<DigestRequest> = { ...req, cnonce: req.cnonce ?? randomBytes(12).toString('hex') };
  const parts = [
    `username=${quote(r.username)}`,
    `realm=${quote(c.realm)}`,
    `nonce=${quote(c.nonce)}`,
    `uri=${quote(r.uri)}`,
    `algorithm=${c.algorithm}`,
    `response=${quote(digestResponse(c, r))}`,
  ];
  if (c.qop) parts.push(`qop=${c.qop}`, `nc=${r.nc.toString(16).padStart(8, '0')}`, `cnonce=${quote(r.cnonce)}`);
  if (c.opaque !== undefined) parts.push(`opaque=${quote(c.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}

/** The parameters of an Authorization: Digest header (the simulator checks what a client sent). */
export function parseDigestAuthorization(header: string | undefined): Map<string, string> | undefined {
  if (!header || !/^Digest\s/i.test(header)) return undefined;
  return parseParams(header.replace(/^Digest\s+/i, ''));
}

/**
 * The response a client that knows the account's password sends with the Authorization
 * parameters `p` it sent (its nonce, uri, nc, cnonce, qop, and algorithm: MD5 when absent): the
 * simulators compare it with the one it did send.
 */
export function expectedDigestResponse(
  p: Map<string, string>,
  account: { realm: string; username: string; password: string },
  method: string,
): string {
  return digestResponse(
    {
      realm: account.realm,
      nonce: p.get('nonce') ?? '',
      algorithm: (p.get('algorithm') ?? 'MD5').toUpperCase(),
      stale: false,
      ...(p.get('qop') ? { qop: 'auth' as const } : {}),
    },
    {
      username: account.username,
      password: account.password,
      method,
      uri: p.get('uri') ?? '',
      nc: parseInt(p.get('nc') ?? '0', 16),
      cnonce: p.get('cnonce') ?? '',
    },
  );
}
