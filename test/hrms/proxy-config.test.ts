import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, type ConfigError } from '../../src/config/load.js';
import { describeRoute, proxySettings } from '../../src/hrms/proxy.js';
import { tempDir } from '../helpers/tmp.js';

const base = { site: 'plant-a', journal: { path: 'j.db' }, hrms: { baseUrl: 'https://hr.example.com' } };
const problems = (hrms: Record<string, unknown>) => {
  try {
    parseConfig({ ...base, hrms: { ...base.hrms, ...hrms } }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('hrms.proxy and hrms.proxyCredentialsFile in the config', () => {
  it('takes a proxy URL, false, or nothing; resolves the credentials file against the config', () => {
    expect(problems({ proxy: 'http://proxy.example:3128' })).toEqual([]);
    expect(problems({ proxy: false })).toEqual([]);
    const c = parseConfig(
      { ...base, hrms: { ...base.hrms, proxy: 'http://p:3128', proxyCredentialsFile: 'proxy-creds' } },
      '/etc/punchgate',
    );
    expect(c.hrms!.proxyCredentialsFile).toBe('/etc/punchgate/proxy-creds');
  });

  it('refuses what cannot work, without ever repeating the value (it may hold a password)', () => {
    const bad = [
      [{ proxy: 'socks://user:Secret-1@p:1080' }, /^hrms\.proxy: must be a URL such as http:\/\/proxy\.example:3128/],
      [{ proxy: 'proxy.example:3128' }, /^hrms\.proxy: must be a URL/],
      [{ proxy: true }, /^hrms\.proxy: /],
      [{ proxy: false, proxyCredentialsFile: 'c' }, /^hrms\.proxyCredentialsFile: is set but hrms\.proxy is false/],
      [
        { proxy: 'http://u:Secret-1@p:3128', proxyCredentialsFile: 'c' },
        /^hrms\.proxyCredentialsFile: .*give them in one place/,
      ],
    ] as const;
    for (const [hrms, message] of bad) {
      const p = problems(hrms);
      expect(p, JSON.stringify(hrms)).toEqual([expect.stringMatching(message)]);
      expect(p.join(' ')).not.toContain('Secret-1');
    }
  });

  it('reads the credentials file; a missing or malformed one is a config error naming the file, not its content', () => {
    const tmp = tempDir();
    try {
      writeFileSync(tmp.path('ok'), 'gate:pa:ss word\n');
      const s = proxySettings({ proxy: 'http://p:3128', proxyCredentialsFile: tmp.path('ok') }, {});
      expect(s.token).toBe(`Basic ${Buffer.from('gate:pa:ss word').toString('base64')}`);
      expect(s.secrets).toEqual(expect.arrayContaining(['gate:pa:ss word', 'pa:ss word']));
      writeFileSync(tmp.path('bad'), 'no-colon-Secret-2\n');
      expect(() => proxySettings({ proxyCredentialsFile: tmp.path('bad') }, {})).toThrow(
        /must hold one line user:password/,
      );
      expect(() => proxySettings({ proxyCredentialsFile: tmp.path('bad') }, {})).not.toThrow(/Secret-2/);
      expect(() => proxySettings({ proxyCredentialsFile: tmp.path('none') }, {})).toThrow(
        /cannot read .*none \(ENOENT\)/,
      );
    } finally {
      tmp.cleanup();
    }
  });

  it('describes the route as undici takes it, never with credentials', () => {
    const env = { HTTPS_PROXY: 'http://u:Secret-3@proxy.corp:8080', NO_PROXY: '.internal, localhost' };
    const route = (url: string) => describeRoute(proxySettings({}, env, url), url);
    expect(route('https://hr.example.com')).toBe('through the proxy http://proxy.corp:8080 (HTTPS_PROXY)');
    expect(route('https://hr.internal')).toBe('directly (the HRMS host is in NO_PROXY)');
    expect(route('https://a.b.internal:8443')).toBe('directly (the HRMS host is in NO_PROXY)');
    expect(route('http://localhost:8080')).toBe('directly (no proxy set)');
    expect(proxySettings({}, env, 'https://hr.example.com').secrets).toEqual(
      expect.arrayContaining(['Secret-3', 'u:Secret-3']),
    );
  });
});
