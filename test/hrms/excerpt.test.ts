import { describe, expect, it } from 'vitest';
import { outsideText, pageExcerpt } from '../../src/hrms/text.js';
import { Secrets } from '../../src/util/secrets.js';

/** A page or body quoted in a message: a secret in it is scrubbed before the quote is cut short. */
describe('an excerpt of a body from outside', () => {
  const TOKEN = 'Zq9TokenXv7Lm3Pw';
  const secrets = new Secrets();
  secrets.add(TOKEN);
  const clean = (s: string) => outsideText(s, (t) => secrets.scrub(t));

  it('never keeps the first letters of a token that the cut falls inside (found by an adversarial trial)', () => {
    for (let pad = 50; pad <= 90; pad++) {
      for (const body of [
        `${'E'.repeat(pad)} Authorization: Bearer ${TOKEN}`,
        `<html><head><title>${'T'.repeat(pad)} ${TOKEN}</title></head><body>x</body></html>`,
      ]) {
        const shown = pageExcerpt(body, clean);
        expect(shown.length).toBeLessThanOrEqual(80);
        // Not even two letters of it where the cut fell.
        expect(shown, `pad ${pad}`).not.toMatch(/Zq/);
      }
    }
  });

  it("keeps the page's title, or its start, whitespace collapsed", () => {
    expect(pageExcerpt('<html><title>502 Bad   Gateway</title></html>', clean)).toBe('502 Bad Gateway');
    expect(pageExcerpt('  Service\n\nunavailable  ', clean)).toBe('Service unavailable');
  });

  it('is cut between characters, never inside one beyond the BMP (no lone surrogate)', () => {
    const shown = pageExcerpt(`${'E'.repeat(79)}😀 and the rest of the page`, clean);
    expect(shown).toBe(`${'E'.repeat(79)}😀`);
    expect(shown).not.toMatch(/\p{Cs}/u);
  });
});
