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

  it('a report rebuilt every interval has every string scrubbed, keys and nested ones too, its unchanged strings not read again', () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const scrub = secrets.reports();
    const reversed = [...TOKEN].reverse().join('');
    const report = (at: string) => ({
      site: 'plant',
      generatedAt: at,
      count: 3,
      ok: true,
      none: null,
      terminals: Array.from({ length: 200 }, (_, i) => ({
        name: `t${i + 1}`,
        lastPollAt: at,
        lastError: i === 7 ? `error: ${TOKEN}` : null,
      })),
      // Fields of any shape: a sink's message, a refusal keyed by what the stranger sent, a Date.
      sinks: [{ name: 'frappe', lastError: `HTTP 401 for ${reversed}` }],
      refusals: { [`serial ${TOKEN}`]: 2 },
      when: new Date(Date.UTC(2026, 10, 29)),
    });
    const look = vi.spyOn(SecretRuns.prototype, 'redact');
    const first = scrub(report('2026-11-29T12:00:00.000Z'));
    expect(first.terminals[7]!.lastError).toBe(`error: ${REDACTED}`);
    expect(first.sinks[0]!.lastError).toBe(`HTTP 401 for ${REDACTED}`);
    expect(Object.keys(first.refusals)).toEqual([`serial ${REDACTED}`]);
    expect(first.when).toBe('2026-11-29T00:00:00.000Z');
    expect({ count: first.count, ok: first.ok, none: first.none }).toEqual({ count: 3, ok: true, none: null });
    expect(JSON.stringify(first)).not.toContain(TOKEN);
    expect(JSON.stringify(first)).not.toContain(reversed);
    // Each distinct string read once; the daemon's own times not read at all.
    const distinct = look.mock.calls.length;
    expect(distinct).toBeGreaterThan(200);
    expect(look.mock.calls.map(([t]) => t)).not.toContain('2026-11-29T12:00:00.000Z');
    // Ten seconds later: only the new string is read.
    const later = report('2026-11-29T12:00:10.000Z');
    later.terminals[3]!.lastError = 'connection refused';
    const second = scrub(later);
    expect(second.terminals[7]!.lastError).toBe(`error: ${REDACTED}`);
    expect(second.terminals[3]!.lastError).toBe('connection refused');
    expect(look).toHaveBeenCalledTimes(distinct + 1);
    // A secret added since: every string is read again.
    secrets.add('line-secret-Qz81', { runs: false });
    later.terminals[100]!.lastError = 'note line-secret-Qz81';
    expect(scrub(later).terminals[100]!.lastError).toBe(`note ${REDACTED}`);
    expect(look.mock.calls.length).toBeGreaterThan(distinct + 1 + 200);
  });
});
