import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretRuns } from '../../src/util/secret-runs.js';
import { scrubberFor, Secrets } from '../../src/util/secrets.js';

const hex = (s: string) => Buffer.from(s).toString('hex');
const reverse = (s: string) => [...s].reverse().join('');

/** RFC 4648 base32 (or its "extended hex" alphabet), with padding, written here independently of the code under test. */
function base32(s: string, chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'): string {
  let bits = '';
  for (const b of Buffer.from(s)) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += chars[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}
const rot13 = (s: string) =>
  s.replace(/[a-z]/gi, (c) =>
    String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= 'Z' ? 65 : 97)),
  );
const rot47 = (s: string) => [...s].map((c) => String.fromCharCode(33 + ((c.charCodeAt(0) - 33 + 47) % 94))).join('');

/** Every way the trial and its variants quoted a token, as functions of the token. */
const DISGUISES: Record<string, (t: string) => string> = {
  plain: (t) => t,
  'minus last': (t) => t.slice(0, -1),
  'middle only': (t) => t.slice(3, 14),
  reversed: reverse,
  'upper case': (t) => t.toUpperCase(),
  spaced: (t) => [...t].join(' '),
  'tab and newline': (t) => [...t].join('\t\n'),
  dashes: (t) => [...t].join('-'),
  interleaved: (t) => [...t].map((c) => `${c}Z`).join(''),
  'every third': (t) => [...t].map((c) => `${c}__`).join(''),
  hex: (t) => hex(t),
  'hex upper with colons': (t) => hex(t).match(/../g)!.join(':').toUpperCase(),
  '0x bytes': (t) => [...Buffer.from(t)].map((b) => `0x${b.toString(16)}`).join(' '),
  'reversed hex': (t) => hex(reverse(t)),
  base64: (t) => Buffer.from(`Authorization: Bearer ${t}`).toString('base64'),
  base64url: (t) => Buffer.from(`xy${t.slice(0, 12)}`).toString('base64url'),
  'percent-encoded': (t) => [...t].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
  '\\x escapes': (t) => [...t].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join(''),
  '\\u escapes': (t) => [...t].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  'html entities': (t) => [...t].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  base32: (t) => base32(t),
  'base32 after other bytes': (t) => base32(`Bearer ${t}`),
  'base32 lower case, no padding': (t) => base32(`x${t}`).toLowerCase().replace(/=+$/, ''),
  base32hex: (t) => base32(`ab${t}`, '0123456789ABCDEFGHIJKLMNOPQRSTUV'),
  rot13: (t) => rot13(t),
  'rot13 reversed': (t) => reverse(rot13(t)),
  rot47: (t) => rot47(t),
  fullwidth: (t) => t.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
  'mathematical bold': (t) =>
    t.replace(/[A-Za-z]/g, (c) => String.fromCodePoint((c <= 'Z' ? 0x1d400 - 65 : 0x1d41a - 97) + c.charCodeAt(0))),
};

describe('a secret quoted in disguise', () => {
  const token = 'Zk3-q9TfLw27xHbR0pVn';
  const runs = new SecretRuns([token]);

  for (const [name, disguise] of Object.entries(DISGUISES)) {
    it(`finds it ${name}, and redacts only it`, () => {
      const text = `Unauthorized: token "${disguise(token)}" expired.`;
      const out = runs.redact(text, '[REDACTED]');
      expect(out.startsWith('Unauthorized: token "')).toBe(true);
      expect(out.endsWith('" expired.')).toBe(true);
      expect(out).toContain('[REDACTED]');
      // Nothing of eight characters of the token is left in any reading.
      expect(runs.find(out)).toEqual([]);
    });
  }

  it('finds any disguise of any random token (property)', () => {
    const names = Object.keys(DISGUISES);
    fc.assert(
      fc.property(
        // Tokens as they are issued: letters and digits, maybe parts joined by separators.
        fc.stringMatching(/^[A-Za-z0-9]{16,40}([._~-][A-Za-z0-9]{4,16}){0,3}$/).filter((t) => /[a-z]/i.test(t)),
        fc.constantFrom(...names),
        fc.string({ maxLength: 20 }),
        (t, name, around) => {
          const r = new SecretRuns([t]);
          const out = r.redact(`${around}>${DISGUISES[name]!(t)}<${around}`, '[R]');
          expect(out).toContain('[R]');
          expect(r.find(out)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves ordinary HRMS messages and status texts alone, even when the token begins with words', () => {
    const wordy = new SecretRuns(['hrms-token-51c0ffee42', 'stack-token-5f2b9c']);
    const ordinary = [
      'no HRMS token: put the token in the token file',
      'HRMS refuses the token since 10:02: put a valid token in the token file',
      'Employee not found: biometric code 1001 at 2026-11-22 08:00:01 (devicelog plant-12345678)',
      'HTTP 500: Internal Server Error',
      '{"generatedAt":"2026-11-26T05:41:53.012Z","punches":{"pending":0,"inflight":0,"delivered":1234567}}',
      'terminal gate-1 clock is 2 min ahead',
      'a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9',
    ];
    for (const t of ordinary) expect(wordy.find(t), t).toEqual([]);
  });

  it("is applied by Secrets.scrub and by the HRMS clients' scrubbers", () => {
    const secrets = new Secrets();
    secrets.add(token);
    expect(secrets.scrub(`x ${reverse(token)} y`)).toBe('x [REDACTED] y');
    expect(scrubberFor([token])(`x ${hex(token.slice(0, -1))} y`)).toBe('x [REDACTED] y');
    // A short secret (six characters) is looked for whole, never by pieces.
    const short = new SecretRuns(['ab12cd']);
    expect(short.find('ab12c is fine')).toEqual([]);
    expect(short.find('dc21ba')).not.toEqual([]);
  });
});
