import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { readProblem } from '../util/read-problem.js';
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
 * token fix an auth failure without a restart. A file is re-read whenever its inode, size,
 * modification or change time differs (ctime: a copy that keeps an old mtime, `cp -p`, still
 * counts as a change); delivery paused on a refused token looks every second (deliverer.ts).
 */
export class TokenSource {
  private cached: { file: string; stamp: string; token: string } | undefined;

  constructor(private readonly opts: TokenSourceOptions) {}

  /** The file the token is read from, or undefined when it comes from the environment. */
  file(): string | undefined {
    const env = this.opts.env ?? process.env;
    if (env.PUNCHGATE_HRMS_TOKEN?.trim()) return undefined;
    const credential = credentialPath(env);
    const configured = this.opts.tokenFile;
    if (configured && (!credential || readable(configured))) return configured;
    return credential ?? configured;
  }

  /** The current token; throws TokenUnavailableError (78) when none is configured or usable. */
  get(): string {
    const env = this.opts.env ?? process.env;
    const envToken = env.PUNCHGATE_HRMS_TOKEN;
    if (envToken?.trim()) {
      const token = usable(envToken, 'PUNCHGATE_HRMS_TOKEN');
      this.opts.secrets.add(token);
      return token;
    }
    const file = this.file();
    if (!file) throw new TokenUnavailableError(NO_TOKEN);
    let st;
    try {
      st = statSync(file);
    } catch (e) {
      throw new TokenUnavailableError(unreadableTokenFile(file, e));
    }
    const c = this.cached;
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    if (c && c.file === file && c.stamp === stamp) return c.token;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new TokenUnavailableError(unreadableTokenFile(file, e));
    }
    // The unit's SetCredential=token:\n stands in when LoadCredential= found no file: no token.
    if (file === credentialPath(env) && !text.trim()) throw new TokenUnavailableError(this.noCredential());
    const token = usable(text, `the token file ${file}`);
    this.opts.secrets.add(token);
    this.cached = { file, stamp, token };
    return token;
  }

  /** Under systemd, with no token file to read and an empty credential. */
  private noCredential(): string {
    const configured = this.opts.tokenFile;
    if (!configured) {
      return `no token configured: put the token in /etc/punchgate/token (the file the unit's LoadCredential=token: names), hrms.tokenFile or PUNCHGATE_HRMS_TOKEN`;
    }
    let why = '(not readable)';
    try {
      accessSync(configured, constants.R_OK);
    } catch (e) {
      why = readProblem(e);
    }
    return `cannot read ${configured} ${why}, and the systemd credential "token" is empty: put the token in ${configured}`;
  }
}

const credentialPath = (env: NodeJS.ProcessEnv) =>
  env.CREDENTIALS_DIRECTORY ? join(env.CREDENTIALS_DIRECTORY, 'token') : undefined;

const NO_TOKEN = 'no token configured: put the token in hrms.tokenFile or PUNCHGATE_HRMS_TOKEN';

/** The token file cannot be read: no file at all is as likely a mistyped name in the config as a token never put there. */
function unreadableTokenFile(file: string, e: unknown): string {
  const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
  return `cannot read ${file} ${readProblem(e)}${missing ? `: put the token in ${file}, or correct hrms.tokenFile if that name is mistyped` : ''}`;
}

/**
 * No token can be had: none is configured, or its file cannot be read or does not hold one
 * token on one line. Nothing was sent, so this is never "the HRMS refused the token".
 */
export class TokenUnavailableError extends ExitError {
  constructor(message: string) {
    super(message, EXIT.CONFIG);
    this.name = 'TokenUnavailableError';
  }
}

/**
 * The token of a file's (or the variable's) text: one line, surrounding blanks and the final
 * newline ignored. Anything else would be sent as a broken Authorization header, which fails
 * like a network error and hides the real cause. The message never quotes the text.
 */
function usable(text: string, where: string): string {
  const token = text.trim();
  if (!token) throw new TokenUnavailableError(`${where} is empty`);
  const lines = token.split(/\r?\n|\r/).filter((l) => l.trim() !== '').length;
  if (lines > 1) throw new TokenUnavailableError(`${where} has ${lines} lines: put the token alone on one line`);
  // The whole header value pasted from an HRMS's API page or a curl line: punchgate writes
  // "Bearer " itself (a new-user trial was told only "a space ... inside the token").
  if (/^bearer\s+[\x21-\x7e]+$/i.test(token))
    throw new TokenUnavailableError(
      `${where} starts with the word "Bearer": put the token alone on its line, without "Bearer " (punchgate sends that word itself)`,
    );
  if (/[^\x21-\x7e]/.test(token)) {
    throw new TokenUnavailableError(
      `${where} holds a space, a control character or a non-ASCII character inside the token: a token is one word of printable ASCII`,
    );
  }
  return token;
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
