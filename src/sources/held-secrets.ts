import { REDACTED, scrubberFor } from '../util/secrets.js';

/** Tokens remembered after they were replaced: an answer to a request made with an old one may still quote it. */
const KEPT_TOKENS = 4;
/**
 * A password this long is replaced where it stands whole even below secrets.ts's shortest secret:
 * too short to look for in every text of the daemon, but a server that quotes it back quotes it whole.
 */
const SHORT_PASSWORD = 4;

/**
 * The secrets one client of a device or server holds (its account's password, the session tokens
 * it was given), to take out of whatever that server answers before its words become a message.
 * A session token lives only in its client's memory, so the daemon's own scrubbing (secrets.ts,
 * registered secrets) cannot know it: the client's can.
 */
export class HeldSecrets {
  private readonly tokens: string[] = [];
  private scrubber: ((text: string) => string) | undefined;

  constructor(private readonly password: string) {}

  /** A token the server gave: scrubbed from now on (and for a while after it is replaced). */
  addToken(token: string): void {
    if (this.tokens.includes(token)) return;
    this.tokens.push(token);
    if (this.tokens.length > KEPT_TOKENS) this.tokens.shift();
    this.scrubber = undefined;
  }

  /** `text` with the password and the tokens taken out, in every form secrets.ts knows (encoded, cut, disguised). */
  scrub(text: string): string {
    this.scrubber ??= scrubberFor([this.password, ...this.tokens]);
    const out = this.scrubber(text);
    const pw = this.password;
    return pw.length >= SHORT_PASSWORD && out.includes(pw) ? out.split(pw).join(REDACTED) : out;
  }
}
