import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenSource } from '../../src/hrms/token.js';
import { ALERT } from '../../src/status/alert-words.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';

describe('TokenSource', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  it('prefers the environment, then a readable token file, then the systemd credential', () => {
    mkdirSync(tmp.path('creds'));
    writeFileSync(tmp.path('creds/token'), 'from-credential\n');
    writeFileSync(tmp.path('token'), 'from-file\n');
    const secrets = new Secrets();
    const src = (env: NodeJS.ProcessEnv, tokenFile: string | null = tmp.path('token')) =>
      new TokenSource({ tokenFile: tokenFile ?? undefined, env, secrets });
    expect(src({ PUNCHGATE_HRMS_TOKEN: 'from-env' }).get()).toBe('from-env');
    expect(src({ CREDENTIALS_DIRECTORY: tmp.path('creds') }).get()).toBe('from-file');
    expect(src({ CREDENTIALS_DIRECTORY: tmp.path('creds') }, tmp.path('missing')).get()).toBe('from-credential');
    expect(src({ CREDENTIALS_DIRECTORY: tmp.path('creds') }, null).get()).toBe('from-credential');
    // Registered as secrets, so they are scrubbed from every log line.
    expect(secrets.scrub('x from-file y')).toBe('x [REDACTED] y');
  });

  it('re-reads the file when it changes, without a restart', () => {
    writeFileSync(tmp.path('token'), 'first-token');
    const src = new TokenSource({ tokenFile: tmp.path('token'), env: {}, secrets: new Secrets() });
    expect(src.get()).toBe('first-token');
    writeFileSync(tmp.path('token'), 'second-token-longer');
    expect(src.get()).toBe('second-token-longer');
  });

  it('fails with a config error (78) saying what is missing, never the token', () => {
    const none = new TokenSource({ env: {}, secrets: new Secrets() });
    expect(() => none.get()).toThrow('no token configured: put the token in hrms.tokenFile or PUNCHGATE_HRMS_TOKEN');
    writeFileSync(tmp.path('empty'), '\n');
    expect(() => new TokenSource({ tokenFile: tmp.path('empty'), env: {}, secrets: new Secrets() }).get()).toThrow(
      /is empty/,
    );
    expect(() => new TokenSource({ tokenFile: tmp.path('missing'), env: {}, secrets: new Secrets() }).get()).toThrow(
      expect.objectContaining({ exitCode: 78, message: expect.stringMatching(/cannot read .*missing \(ENOENT\)/) }),
    );
  });

  it('a token file with two lines is named as such (it would make a broken header, not a network error)', () => {
    writeFileSync(tmp.path('token'), 'first-half-of-token\nsecond-line-here\n');
    const src = new TokenSource({ tokenFile: tmp.path('token'), env: {}, secrets: new Secrets() });
    expect(() => src.get()).toThrow(
      expect.objectContaining({
        name: 'TokenUnavailableError',
        exitCode: 78,
        message: `the token file ${tmp.path('token')} has 2 lines: put the token alone on one line`,
      }),
    );
    expect(() => src.get()).not.toThrow(/first-half|second-line/);
    // Windows line ending and surrounding blanks are one line.
    writeFileSync(tmp.path('token'), '  the-token\r\n\n');
    expect(src.get()).toBe('the-token');
    writeFileSync(tmp.path('token'), 'two words');
    expect(() => src.get()).toThrow(/holds a space, a control character/);
    // The header's value pasted whole (from an API page, a curl line): said as such, never quoted.
    writeFileSync(tmp.path('token'), 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.Zk9xQ2mT7vR4pL8\n');
    expect(() => src.get()).toThrow(
      `the token file ${tmp.path('token')} starts with the word "Bearer": put the token alone on its line, without "Bearer " (punchgate sends that word itself)`,
    );
    expect(() => src.get()).not.toThrow(/eyJ|Zk9x/);
    expect(() => new TokenSource({ env: { PUNCHGATE_HRMS_TOKEN: 'a\nb' }, secrets: new Secrets() }).get()).toThrow(
      'PUNCHGATE_HRMS_TOKEN has 2 lines: put the token alone on one line',
    );
  });

  it('a token file that is not there: the fix names a mistyped hrms.tokenFile too, and the status alert carries it', () => {
    const missing = new TokenSource({ tokenFile: tmp.path('tokn'), env: {}, secrets: new Secrets() });
    let message = '';
    try {
      missing.get();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(
      `cannot read ${tmp.path('tokn')} (ENOENT): no such file: put the token in ${tmp.path('tokn')}, or correct hrms.tokenFile if that name is mistyped`,
    );
    const alert = ALERT.noToken(`no usable HRMS token: ${message}`, null);
    expect(alert.cause).toMatch(
      /^no usable HRMS token: cannot read .*tokn \(ENOENT\): no such file: nothing is delivered/,
    );
    expect(alert.fix).toBe(`put the token in ${tmp.path('tokn')}, or correct hrms.tokenFile if that name is mistyped`);
  });

  it("under systemd: the unit's empty default credential (SetCredential=token:\\n) means no token configured", () => {
    mkdirSync(tmp.path('creds'));
    writeFileSync(tmp.path('creds/token'), '\n');
    const env = { CREDENTIALS_DIRECTORY: tmp.path('creds') };
    expect(() => new TokenSource({ env, secrets: new Secrets() }).get()).toThrow(
      "no token configured: put the token in /etc/punchgate/token (the file the unit's LoadCredential=token: names), hrms.tokenFile or PUNCHGATE_HRMS_TOKEN",
    );
    expect(() => new TokenSource({ tokenFile: tmp.path('gone'), env, secrets: new Secrets() }).get()).toThrow(
      `cannot read ${tmp.path('gone')} (ENOENT): no such file, and the systemd credential "token" is empty: put the token in ${tmp.path('gone')}`,
    );
    // The token from the environment wins over the empty credential.
    expect(new TokenSource({ env: { ...env, PUNCHGATE_HRMS_TOKEN: 'env-token' }, secrets: new Secrets() }).get()).toBe(
      'env-token',
    );
  });
});
