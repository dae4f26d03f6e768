import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

// A new-user trial wrote the HRMS's address as `localhost:38080`: it parses as a URL of the scheme
// `localhost:`, and the config said only "hrms.baseUrl: must be an https:// URL", not what it found.
const problems = (raw: object) => {
  try {
    parseConfig({ site: 'plant-a', journal: { path: 'j.db' }, ...raw }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('a server address without its scheme', () => {
  it('is said as such, with what was written, for the HRMS, a sink and a terminal', () => {
    // Another trial wrote the box's own address, `192.168.1.10:8080`, and the host alone: neither
    // parses as a URL at all, and the config said only "must be a URL such as ...".
    for (const written of [
      'localhost:38080',
      'hr.example.com:443',
      '192.168.1.10:8080',
      'hr.example.com',
      '127.0.0.1',
    ]) {
      expect(problems({ hrms: { baseUrl: written, tokenFile: 't' } })).toEqual([
        `hrms.baseUrl: must begin with its scheme and two slashes, such as https://hr.example.com, got the text "${written}"`,
      ]);
      expect(
        problems({ sinks: [{ name: 'erp', kind: 'frappe', baseUrl: written, apiKeyFile: 'k', apiSecretFile: 's' }] }),
      ).toEqual([
        `sinks[0] (erp).baseUrl: must begin with its scheme and two slashes, such as https://hr.example.com, got the text "${written}"`,
      ]);
    }
    const bio = problems({
      hrms: { baseUrl: 'https://hr.example.com', tokenFile: 't' },
      terminals: [{ name: 'office', kind: 'biotime', baseUrl: '10.0.0.5:8081', username: 'admin', timezone: 'UTC' }],
    });
    expect(bio).toHaveLength(1);
    // A terminal's address must be http(s) anyway: that rule says it, with what was written.
    expect(bio).toEqual([
      'terminals[0] (office).baseUrl: must be an http:// or https:// URL, got the text "10.0.0.5:8081"',
    ]);
  });

  it('leaves other schemes to the https rule, once', () => {
    expect(problems({ hrms: { baseUrl: 'ftp://hr.example.com', tokenFile: 't' } })).toEqual([
      'hrms.baseUrl: must be an https:// URL',
    ]);
  });
});
