import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, ExitError } from '../util/exit-codes.js';
import type { Secrets } from '../util/secrets.js';

export interface TokenSourceOptions {
  tokenFile?: string;
  env?: NodeJS.ProcessEnv;
  secrets: Secrets;
}

/**
 * Where the HRMS bearer token comes from, in order: env PUNCHGATE_HRMS_TOKEN; `hrms.tokenFile`
 * when this process can read it; the systemd credential `token` ($CREDENTIALS_DIRECTORY/token,
 * from LoadCredential=). The file comes before the credential because systemd copies a
 * credential once at start: reading the file itself is what lets an admin who writes a new
 * token fix an auth failure without a restart. A file is re-read whenever its modification
 * time or size changes.
 */
export class TokenSource {
  private cached: { file: string; mtimeMs: number; size: number; token: string } | undefined;

  constructor(private readonly opts: TokenSourceOptions) {}

  /** The file the token is read from, or undefined when it comes from the environment. */
  file(): string | undefined {
    const env = this.opts.env ?? process.env;
    if (env.PUNCHGATE_HRMS_TOKEN) return undefined;
    const credential = env.CREDENTIALS_DIRECTORY ? join(env.CREDENTIALS_DIRECTORY, 'token') : undefined;
    const configured = this.opts.tokenFile;
    if (configured && (!credential || readable(configured))) return configured;
    return credential ?? configured;
  }

  /** The current token; throws ExitError(78) when none is configured or readable. */
  get(): string {
    const env = this.opts.env ?? process.env;
    const fromEnv = env.PUNCHGATE_HRMS_TOKEN?.trim();
    if (fromEnv) {
      this.opts.secrets.add(fromEnv);
      return fromEnv;
    }
    const file = this.file();
    if (!file) {
      throw new ExitError('hrms.tokenFile: no HRMS token: set hrms.tokenFile or PUNCHGATE_HRMS_TOKEN', EXIT.CONFIG);
    }
    let st;
    try {
      st = statSync(file);
    } catch (e) {
      throw new ExitError(
        `hrms.tokenFile: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        EXIT.CONFIG,
      );
    }
    const c = this.cached;
    if (c && c.file === file && c.mtimeMs === st.mtimeMs && c.size === st.size) return c.token;
    const token = readFileSync(file, 'utf8').trim();
    if (!token) throw new ExitError(`hrms.tokenFile: ${file} is empty`, EXIT.CONFIG);
    this.opts.secrets.add(token);
    this.cached = { file, mtimeMs: st.mtimeMs, size: st.size, token };
    return token;
  }
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
