import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from '../util/logger.js';
import type { Secrets } from '../util/secrets.js';

/**
 * The token of `status.authTokenFile`, and the check of a request's Authorization header
 * against it. A visitor sends it as a bearer token (Prometheus `authorization.credentials_file`)
 * or as the password of basic auth, with any user name (Prometheus `basic_auth`, or a browser's
 * login prompt). The file is re-read when it changes, like the HRMS token. An unreadable or
 * empty file lets nobody in (and says so in the log): the page never opens by accident.
 */
export class StatusAuth {
  private cached: { mtimeMs: number; size: number; digest: Buffer | undefined } | undefined;
  private lastProblem: string | undefined;

  constructor(
    private readonly file: string,
    private readonly deps: { secrets: Secrets; logger: Logger },
  ) {}

  /** Reads the file now, so that a file that lets nobody in is said in the log at the start. */
  look(): void {
    this.digest();
  }

  /** Whether the Authorization header carries the token. */
  allows(header: string | undefined): boolean {
    const expected = this.digest();
    const given = header === undefined ? undefined : presented(header);
    if (!expected || given === undefined) return false;
    return timingSafeEqual(expected, sha256(given));
  }

  private digest(): Buffer | undefined {
    let problem: string | undefined;
    try {
      const st = statSync(this.file);
      const c = this.cached;
      if (c && c.mtimeMs === st.mtimeMs && c.size === st.size) return c.digest;
      const token = readFileSync(this.file, 'utf8').trim();
      if (token) this.deps.secrets.add(token);
      else problem = 'is empty';
      this.cached = { mtimeMs: st.mtimeMs, size: st.size, digest: token ? sha256(token) : undefined };
    } catch (e) {
      problem = `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
      this.cached = undefined;
    }
    if (problem && problem !== this.lastProblem) {
      this.deps.logger.error(
        { file: this.file },
        `status.authTokenFile ${this.file} ${problem}: nobody can open the status page or /metrics until it holds a token: put a token on one line in it, readable by the user punchgate runs as (it is read again without a restart), or remove status.authTokenFile`,
      );
    }
    this.lastProblem = problem;
    return this.cached?.digest;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** The secret a request presents: a bearer token, or a basic-auth password. */
function presented(header: string): string | undefined {
  const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  if (scheme === 'bearer') return m[2]!;
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}
