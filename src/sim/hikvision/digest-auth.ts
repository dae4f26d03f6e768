import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { expectedDigestResponse, parseDigestAuthorization } from '../../sources/http-digest.js';
import type { HikAuthStats } from './types.js';

export type AuthOutcome =
  | { ok: true }
  | { ok: false; kind: 'none' | 'stale' | 'refused' | 'locked'; headers: Record<string, string>; body: string };

export interface DigestServerOptions {
  username: string;
  password: string;
  realm: string;
  lockoutAfter: number;
  lockoutMs: number;
  /** Wrong passwords older than this no longer count towards the lock. */
  lockoutWindowMs: number;
  nonceTtlMs: number;
  now: () => number;
}

/**
 * The device side of Digest authentication, as Hikvision firmware behaves: MD5, qop=auth,
 * nonces that expire (answered with stale=true), and an account locked after `lockoutAfter`
 * wrong passwords within `lockoutWindowMs` (none right in between), refusing even the right one
 * until the lock ends.
 */
export class DigestServer {
  private readonly nonces = new Map<string, number>();
  /** Times of the wrong passwords since the last success that still count. */
  private recentFailures: number[] = [];
  readonly stats: HikAuthStats = { consecutiveFailures: 0, failures: 0, lockouts: 0, lockedUntil: null };

  constructor(private readonly o: DigestServerOptions) {}

  setPassword(password: string): void {
    this.o.password = password;
  }

  private challenge(stale: boolean): Record<string, string> {
    const nonce = randomBytes(16).toString('hex');
    this.nonces.set(nonce, this.o.now());
    if (this.nonces.size > 1000) this.nonces.delete(this.nonces.keys().next().value!);
    return {
      'www-authenticate': `Digest qop="auth", realm="${this.o.realm}", nonce="${nonce}", stale="${stale ? 'TRUE' : 'FALSE'}"`,
    };
  }

  /** The ISAPI userCheck body of a 401 (how devices tell the lock state). */
  private userCheck(): string {
    const now = this.o.now();
    const locked = this.stats.lockedUntil !== null && this.stats.lockedUntil > now;
    return (
      '<?xml version="1.0" encoding="UTF-8"?><userCheck><statusValue>401</statusValue><statusString>Unauthorized</statusString>' +
      `<lockStatus>${locked ? 'lock' : 'unlock'}</lockStatus>` +
      `<unlockTime>${locked ? Math.ceil((this.stats.lockedUntil! - now) / 1000) : 0}</unlockTime>` +
      `<retryLoginTime>${Math.max(0, this.o.lockoutAfter - this.stats.consecutiveFailures)}</retryLoginTime></userCheck>`
    );
  }

  check(method: string, headers: IncomingHttpHeaders): AuthOutcome {
    const now = this.o.now();
    const p = parseDigestAuthorization(headers.authorization);
    if (!p) return { ok: false, kind: 'none', headers: this.challenge(false), body: this.userCheck() };
    if (this.stats.lockedUntil !== null && this.stats.lockedUntil > now) {
      return { ok: false, kind: 'locked', headers: this.challenge(false), body: this.userCheck() };
    }
    const nonce = p.get('nonce') ?? '';
    const expected = expectedDigestResponse(p, this.o, method);
    const right = p.get('username') === this.o.username && p.get('response') === expected;
    const issued = this.nonces.get(nonce);
    const fresh = issued !== undefined && now - issued < this.o.nonceTtlMs;
    if (right && fresh) {
      this.recentFailures = [];
      this.stats.consecutiveFailures = 0;
      return { ok: true };
    }
    if (right) return { ok: false, kind: 'stale', headers: this.challenge(true), body: this.userCheck() };
    this.stats.failures++;
    this.recentFailures = [...this.recentFailures.filter((t) => now - t < this.o.lockoutWindowMs), now];
    this.stats.consecutiveFailures = this.recentFailures.length;
    if (this.stats.consecutiveFailures >= this.o.lockoutAfter) {
      this.stats.lockouts++;
      this.stats.lockedUntil = now + this.o.lockoutMs;
      this.recentFailures = [];
      this.stats.consecutiveFailures = 0;
      return { ok: false, kind: 'locked', headers: this.challenge(false), body: this.userCheck() };
    }
    return { ok: false, kind: 'refused', headers: this.challenge(false), body: this.userCheck() };
  }
}
