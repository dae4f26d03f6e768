import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { expectedDigestResponse, parseDigestAuthorization } from '../../sources/http-digest.js';

/**
 * The device side of Digest authentication as Dahua firmware behaves: qop=auth, a realm
 * `Login to <serial>`, MD5 (older firmware), SHA-256 alone, or both offered side by side (newer
 * firmware: two WWW-Authenticate headers); five wrong passwords lock the account.
 */
export type DigestOffer = 'md5' | 'sha256' | 'both';

export interface DahuaAuthStats {
  failures: number;
  lockouts: number;
  /** The algorithm of the last accepted answer. */
  lastAlgorithm: string | null;
}

export class DahuaDigest {
  private readonly nonces = new Set<string>();
  private wrong = 0;
  private lockedUntil = 0;
  readonly stats: DahuaAuthStats = { failures: 0, lockouts: 0, lastAlgorithm: null };

  constructor(
    private readonly o: { username: string; password: string; realm: string; offer: DigestOffer; lockoutAfter: number },
  ) {}

  setPassword(p: string): void {
    this.o.password = p;
  }

  /** Another realm (a firmware update, a reset): the nonces given under the old one are forgotten. */
  setRealm(realm: string): void {
    this.o.realm = realm;
    this.nonces.clear();
  }

  challenge(): string[] {
    const nonce = randomBytes(16).toString('hex');
    this.nonces.add(nonce);
    if (this.nonces.size > 1000) this.nonces.delete(this.nonces.values().next().value!);
    const one = (alg: string) =>
      `Digest realm="${this.o.realm}", qop="auth", nonce="${nonce}", opaque="${randomBytes(8).toString('hex')}", algorithm=${alg}`;
    if (this.o.offer === 'md5') return [one('MD5')];
    if (this.o.offer === 'sha256') return [one('SHA-256')];
    return [one('SHA-256'), one('MD5')];
  }

  /** ok, or the kind of refusal (none: no credentials; refused: wrong; locked). */
  check(method: string, headers: IncomingHttpHeaders): 'ok' | 'none' | 'refused' | 'locked' | 'stale' {
    const p = parseDigestAuthorization(headers.authorization);
    if (!p) return 'none';
    if (this.lockedUntil > Date.now()) return 'locked';
    const algorithm = (p.get('algorithm') ?? 'MD5').toUpperCase();
    const allowed = this.o.offer === 'both' ? ['MD5', 'SHA-256'] : [this.o.offer === 'md5' ? 'MD5' : 'SHA-256'];
    const nonce = p.get('nonce') ?? '';
    const expected = expectedDigestResponse(p, this.o, method);
    const right =
      allowed.includes(algorithm) && p.get('username') === this.o.username && p.get('response') === expected;
    if (right && this.nonces.has(nonce)) {
      this.wrong = 0;
      this.stats.lastAlgorithm = algorithm;
      return 'ok';
    }
    if (right) return 'stale';
    this.stats.failures++;
    if (++this.wrong >= this.o.lockoutAfter) {
      this.wrong = 0;
      this.stats.lockouts++;
      this.lockedUntil = Date.now() + 30 * 60_000;
      return 'locked';
    }
    return 'refused';
  }
}
