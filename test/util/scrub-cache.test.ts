import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretRuns } from '../../src/util/secret-runs.js';
import { REDACTED, scrubberFor, Secrets } from '../../src/util/secrets.js';

const TOKEN = 'q7Xk2mVt9LpR4sWz';

/**
 * Issue 35: a batch of 200 punches comes back with 200 messages, mostly the same words; each is
 * scrubbed of secrets before it is stored. Reading a text for a secret in every disguise is costly
 * (secret-runs.ts), so a text scrubbed lately is not read again, and a secret learnt since is
 * never missed for it.
 */
describe('scrubbing the same text again', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads a repeated message once, and a secret added later is redacted from it all the same', () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const look = vi.spyOn(SecretRuns.prototype, 'redact');
    const message = `duplicate punch, token ${[...TOKEN].reverse().join('')} noted`;
    const first = secrets.scrub(message);
    expect(first).toBe(`duplicate punch, token ${REDACTED} noted`);
    for (let i = 0; i < 199; i++) expect(secrets.scrub(message)).toBe(first);
    expect(look).toHaveBeenCalledTimes(1);

    // A secret learnt afterwards (a reload's new proxy password) is looked for in the same text again.
    const plain = 'saved for Hunter-2-Password-Xy';
    expect(secrets.scrub(plain)).toBe(plain);
    secrets.add('Hunter-2-Password-Xy', { runs: false });
    expect(secrets.scrub(plain)).toBe(`saved for ${REDACTED}`);
  });

  it("an HRMS client's scrubber reads a repeated answer once too, and long texts each time", () => {
    const scrub = scrubberFor([TOKEN]);
    const look = vi.spyOn(SecretRuns.prototype, 'redact');
    for (let i = 0; i < 200; i++) expect(scrub(`ok ${TOKEN}`)).toBe(`ok ${REDACTED}`);
    expect(look).toHaveBeenCalledTimes(1);
    const long = `${'x'.repeat(10_000)} ${TOKEN}`;
    expect(scrub(long)).toBe(`${'x'.repeat(10_000)} ${REDACTED}`);
    expect(scrub(long)).toBe(`${'x'.repeat(10_000)} ${REDACTED}`);
    expect(look).toHaveBeenCalledTimes(3);
  });

  it('keeps a bounded number of texts', () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const look = vi.spyOn(SecretRuns.prototype, 'redact');
    for (let i = 0; i < 1000; i++) secrets.scrub(`message ${i}`);
    secrets.scrub('message 0'); // long gone from the cache: read again
    secrets.scrub('message 999'); // still there
    expect(look).toHaveBeenCalledTimes(1001);
  });

  it('a file rewritten every interval is scrubbed a line at a time, its unchanged lines not read again', () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const scrub = secrets.lines();
    const terminals = (at: string) =>
      Array.from(
        { length: 200 },
        (_, i) => `t${i + 1}  online  last poll ${at}  ${i === 7 ? `error: ${TOKEN}` : 'ok'}`,
      );
    const look = vi.spyOn(SecretRuns.prototype, 'redact');
    const first = scrub(['punchgate status', ...terminals('12:00:00'), 'delivery: running'].join('\n')).split('\n');
    expect(first).toHaveLength(202);
    expect(first[8]).toBe(`t8  online  last poll 12:00:00  error: ${REDACTED}`);
    expect(first.join('\n')).not.toContain(TOKEN);
    expect(look).toHaveBeenCalledTimes(202);
    // Ten seconds later: two lines changed, the rest read from the last write.
    const lines = ['punchgate status', ...terminals('12:00:00'), 'delivery: running'];
    lines[1] = `t1  online  last poll 12:00:10  ok`;
    lines[8] = `t8  online  last poll 12:00:10  error: ${TOKEN}`;
    const second = scrub(lines.join('\n')).split('\n');
    expect(second[8]).toBe(`t8  online  last poll 12:00:10  error: ${REDACTED}`);
    expect(second.slice(2, 8)).toEqual(first.slice(2, 8));
    expect(look).toHaveBeenCalledTimes(204);
    // A secret added since: every line is read again.
    secrets.add('line-secret-Qz81', { runs: false });
    lines[100] = 'note line-secret-Qz81';
    expect(scrub(lines.join('\n')).split('\n')[100]).toBe(`note ${REDACTED}`);
    expect(look).toHaveBeenCalledTimes(204 + 202);
  });
});
