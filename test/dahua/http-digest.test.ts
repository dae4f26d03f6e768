import { describe, expect, it } from 'vitest';
import { digestAuthorization, parseDigestChallenge } from '../../src/sources/http-digest.js';

describe('shared Digest (src/sources/http-digest.ts)', () => {
  it('answers SHA-256 when a device offers SHA-256 and MD5 side by side (RFC 7616 section 3.7)', () => {
    const both = [
      'Digest realm="Login to 7G0C1E2PAZ", qop="auth", nonce="n1", opaque="o", algorithm=MD5',
      'Digest realm="Login to 7G0C1E2PAZ", qop="auth", nonce="n2", opaque="o", algorithm=SHA-256',
    ];
    expect(parseDigestChallenge(both)).toMatchObject({ algorithm: 'SHA-256', nonce: 'n2' });
    // The same two in one header.
    expect(parseDigestChallenge(both.join(', '))).toMatchObject({ algorithm: 'SHA-256', nonce: 'n2' });
    // MD5 alone stays MD5; an unknown algorithm next to it is skipped.
    expect(parseDigestChallenge([both[0]!, 'Digest realm="x", nonce="n3", algorithm=SHA-512-256'])).toMatchObject({
      algorithm: 'MD5',
    });
    const c = parseDigestChallenge(both)!;
    const h = digestAuthorization(c, { username: 'admin', password: 'pw', method: 'GET', uri: '/cgi-bin/x', nc: 1 });
    expect(h).toMatch(/algorithm=SHA-256/);
    expect(h).toMatch(/response="[0-9a-f]{64}"/);
    expect(h).not.toContain('pw"');
  });
});
