import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PushProtocol, PushRegistration } from '../../journal/types.js';

/**
 * ZKTeco's Security PUSH (access-control push, `DeviceType=acc`, PushSDK 3.x): what differs from
 * the attendance protocol at the handshake. Both share `/iclock/*`; one terminal kind speaks
 * both, and the device tells which:
 * 1. `DeviceType=` in the handshake's query (`acc`: Security PUSH; any other value: attendance);
 * 2. else what it said before (kept with its registration): a `DeviceType=acc` registry body, a
 *    call of `/iclock/registry` or `/iclock/push`, or an upload of a table only Security PUSH has
 *    (`cdata` with rtlog, rtstate, tabledata). An answer to a query on `/iclock/querydata` is no
 *    sign: attendance firmware answers a users query with tabledata there too;
 * 3. else the attendance protocol (`pushver=3.x` alone tells nothing: attendance firmware sends it too).
 *
 * Registration: an unregistered device's handshake is answered `OK`; it posts its facts to
 * `/iclock/registry` and gets `RegistryCode=<code>`; it fetches `/iclock/push` (the server's
 * configuration with a `SessionID`) and from then on sends `Cookie: token=<md5(RegistryCode +
 * SN + SessionID)>`. A registered device's handshake is answered `registry=ok`, its
 * RegistryCode and the configuration at once.
 */

/** The protocol a handshake's query names, if it names one. */
export function declaredProtocol(query: URLSearchParams): PushProtocol | undefined {
  for (const [k, v] of query) {
    if (k.toLowerCase() !== 'devicetype') continue;
    const t = v.trim().toLowerCase();
    if (t === '') return undefined;
    return t === 'acc' ? 'security' : 'attendance';
  }
  return undefined;
}

/**
 * The protocol a handshake tells by its `pushver`: below 3, attendance (PushSDK 3.x is Security
 * PUSH's; attendance firmware sends 2.x); undefined when it tells nothing (none, or 3.x, which
 * attendance firmware sends too).
 */
function protocolOfVersion(query: URLSearchParams): PushProtocol | undefined {
  const v = /^(\d+)\./.exec(query.get('pushver') ?? '')?.[1];
  return v !== undefined && Number(v) < 3 ? 'attendance' : undefined;
}

/**
 * The protocol to answer a handshake in. Security PUSH remembered from an upload alone (the
 * device never registered) gives way to a handshake of attendance firmware (`pushver=2.x`): an
 * earlier punchgate took a query answer for Security PUSH, and such a terminal stopped uploading.
 */
export function protocolOf(query: URLSearchParams, known: PushRegistration | undefined): PushProtocol {
  const declared = declaredProtocol(query);
  if (declared) return declared;
  if (known?.protocol === 'security' && !known.registryCode && protocolOfVersion(query) === 'attendance')
    return 'attendance';
  return known?.protocol ?? 'attendance';
}

/** A code or session id of `bytes` random bytes, hex (the protocol allows up to 32 characters). */
export const mintCode = (bytes = 8) => randomBytes(bytes).toString('hex');

/** The `token` a registered device sends in its Cookie: md5(RegistryCode + SN + SessionID), hex. */
export function sessionToken(registryCode: string, serial: string, sessionId: string): string {
  return createHash('md5').update(`${registryCode}${serial}${sessionId}`).digest('hex');
}

/**
 * The `token=` of a Cookie header: the token, undefined when there is no Cookie (or no token
 * in it), or 'unparsable' when the header is not `name=value` pairs or the token is not hex.
 */
export function cookieToken(header: string | string[] | undefined): string | undefined | 'unparsable' {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join('; ') : header;
  let token: string | undefined;
  for (const part of text.split(';')) {
    const p = part.trim();
    if (p === '') continue;
    const eq = p.indexOf('=');
    if (eq <= 0) return 'unparsable';
    if (p.slice(0, eq).trim().toLowerCase() === 'token') token = p.slice(eq + 1).trim();
  }
  if (token === undefined) return undefined;
  return /^[0-9a-fA-F]{8,64}$/.test(token) ? token.toLowerCase() : 'unparsable';
}

/** Keys never kept from what a device says about itself: they may carry a comm key or a password. */
const SECRET_KEY = /key|pass|pwd|secret|token/i;
// eslint-disable-next-line no-control-regex -- stripping control characters is the point here
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const MAX_FACTS = 80;
const MAX_VALUE = 64;

/**
 * The body of `POST /iclock/registry`: one line of comma-separated `key=value` device facts
 * (`DeviceType=acc,~DeviceName=SpeedFace-V5L,FirmVer=...,PushVersion=...,MaxPackageSize=...`),
 * some keys prefixed `~`. Facts are kept under their key without the `~`, secrets left out,
 * values cleaned and cut short. Undefined when nothing in it is a fact.
 */
export function parseRegistryBody(text: string): Record<string, string> | undefined {
  const facts: Record<string, string> = {};
  let n = 0;
  for (const part of text.split(/[,\n\t]/)) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim().replace(/^~/, '');
    if (!/^[A-Za-z][\w.]{0,39}$/.test(key) || SECRET_KEY.test(key) || key in facts) continue;
    facts[key] = part
      .slice(eq + 1)
      .replace(CONTROL, '')
      .trim()
      .slice(0, MAX_VALUE);
    if (++n >= MAX_FACTS) break;
  }
  return n > 0 ? facts : undefined;
}

/** The facts shown to the admin: model, firmware, protocol version and capacities. */
export function shownFacts(facts: Record<string, string>): {
  model?: string;
  firmware?: string;
  pushVersion?: string;
  deviceType?: string;
  capacities: Record<string, string>;
} {
  const capacities: Record<string, string> = {};
  for (const [k, v] of Object.entries(facts))
    if (/^Max\w*Count$|^(LockCount|ReaderCount|AuxInCount|AuxOutCount|MaxPackageSize)$/.test(k) && /^\d{1,9}$/.test(v))
      capacities[k] = v;
  return {
    model: facts.DeviceName || facts.Model || undefined,
    firmware: facts.FirmVer || facts.FWVersion || undefined,
    pushVersion: facts.PushVersion || undefined,
    deviceType: facts.DeviceType || undefined,
    capacities,
  };
}

/** Compares a presented token with the expected one in constant time (a LAN timing probe learns nothing). */
export function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
