import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenSource } from '../../src/hrms/token.js';
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

  it('fails with a config error (78) naming the key, never the token', () => {
    const none = new TokenSource({ env: {}, secrets: new Secrets() });
    expect(() => none.get()).toThrow(/hrms.tokenFile: no HRMS token/);
    writeFileSync(tmp.path('empty'), '\n');
    expect(() => new TokenSource({ tokenFile: tmp.path('empty'), env: {}, secrets: new Secrets() }).get()).toThrow(
      /is empty/,
    );
    expect(() => new TokenSource({ tokenFile: tmp.path('missing'), env: {}, secrets: new Secrets() }).get()).toThrow(
      expect.objectContaining({ exitCode: 78, message: expect.stringMatching(/cannot read .*missing \(ENOENT\)/) }),
    );
  });
});
