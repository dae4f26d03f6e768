/** Accepted bearer tokens and their expiry. Tokens are never logged nor put in an answer. */
export class TokenRegistry {
  private readonly tokens = new Map<string, number | undefined>();
  /** No token configured and none added: any non-empty bearer token is accepted. */
  private acceptAny: boolean;

  constructor(initial: Array<string | { token: string; expiresAt?: number }> | undefined) {
    this.acceptAny = initial === undefined;
    for (const t of initial ?? []) {
      if (typeof t === 'string') this.add(t);
      else this.add(t.token, t.expiresAt);
    }
  }

  add(token: string, expiresAt?: number): void {
    if (!token) throw new Error('a token must not be empty');
    this.tokens.set(token, expiresAt);
    this.acceptAny = false;
  }

  /** True when the Authorization header carries an accepted, unexpired token at `now`. */
  accepts(authorization: string | undefined, now: number, allExpireAt: number | null): boolean {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const token = m?.[1];
    if (!token) return false;
    if (allExpireAt !== null && now >= allExpireAt) return false;
    if (this.acceptAny) return true;
    if (!this.tokens.has(token)) return false;
    const exp = this.tokens.get(token);
    return exp === undefined || now < exp;
  }
}
