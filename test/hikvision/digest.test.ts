import { describe, expect, it } from 'vitest';
import {
  digestAuthorization,
  digestResponse,
  parseDigestAuthorization,
  parseDigestChallenge,
} from '../../src/sources/http-digest.js';

describe('digest authentication', () => {
  it('computes the example of RFC 2617 section 3.5 (MD5, qop=auth)', () => {
    const c = parseDigestChallenge(
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    )!;
    expect(c).toMatchObject({ realm: 'testrealm@host.com', qop: 'auth', algorithm: 'MD5', stale: false });
    const header = digestAuthorization(c, {
      username: 'Mufasa',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nc: 1,
      cnonce: '0a4f113b',
    });
    const p = parseDigestAuthorization(header)!;
    expect(p.get('response')).toBe('6629fae49393a05397450978507c4ef1');
    expect(p.get('nc')).toBe('00000001');
    expect(p.get('opaque')).toBe('5ccc069c403ebaf9f0171e9517f40e41');
    expect(header).not.toContain('Circle Of Life');
  });

  it('computes the examples of RFC 7616 section 3.9.1 (SHA-256 and MD5)', () => {
    const header = (algorithm: string) =>
      `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`;
    const req = {
      username: 'Mufasa',
      password: 'Circle of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nc: 1,
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    expect(digestResponse(parseDigestChallenge(header('SHA-256'))!, req)).toBe(
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
    expect(digestResponse(parseDigestChallenge(header('MD5'))!, req)).toBe('8ca523f5e9506fed4657c9700eebdbec');
  });

  it('finds Digest among several challenges and reads stale', () => {
    const c = parseDigestChallenge([
      'Basic realm="x"',
      'Basic realm="DS-K1T", Digest qop="auth", realm="DS-K1T", nonce="abc\\"d", stale="TRUE"',
    ])!;
    expect(c).toMatchObject({ realm: 'DS-K1T', nonce: 'abc"d', stale: true });
  });

  it('ignores what it cannot answer', () => {
    expect(parseDigestChallenge(undefined)).toBeUndefined();
    expect(parseDigestChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseDigestChallenge('Digest realm="x", nonce="n", qop="auth-int"')).toBeUndefined();
    expect(parseDigestChallenge('Digest realm="x", nonce="n", algorithm=SHA-512-256')).toBeUndefined();
    expect(parseDigestChallenge('Digest realm="x"')).toBeUndefined();
  });

  it('answers a challenge without qop the RFC 2069 way', () => {
    const c = parseDigestChallenge('Digest realm="r", nonce="n"')!;
    const p = parseDigestAuthorization(
      digestAuthorization(c, { username: 'u', password: 'p', method: 'GET', uri: '/', nc: 3 }),
    )!;
    expect(p.has('qop')).toBe(false);
    expect(p.has('nc')).toBe(false);
  });
});
