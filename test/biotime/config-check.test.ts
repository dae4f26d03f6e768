import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { checkBiotimeServer } from '../../src/check/biotime-check.js';
import { terminalSecrets } from '../../src/sources/build.js';
import { bioConfig, passwordEnv, startSim } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const base = {
  site: 'plant-a',
  journal: { path: 'j.db' },
  hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
};
const problems = (terminal: Record<string, unknown>) => {
  try {
    parseConfig({ ...base, terminals: [terminal] }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('kind: biotime config and check', () => {
  it('takes a server with defaults, resolves the password file, bounds pageSize and says what is wrong', () => {
    const c = parseConfig(
      {
        ...base,
        terminals: [
          { name: 'hq', kind: 'biotime', baseUrl: 'http://10.0.0.5:8081', username: 'api', passwordFile: 'hq.pass' },
        ],
      },
      '/etc/punchgate',
    );
    expect(c.terminals[0]).toMatchObject({
      kind: 'biotime',
      pageSize: 500,
      auth: 'auto',
      passwordFile: '/etc/punchgate/hq.pass',
    });
    const t = { name: 'hq', kind: 'biotime', baseUrl: 'http://10.0.0.5:8081', username: 'api' };
    expect(problems({ ...t, pageSize: 5000 })).toEqual([expect.stringMatching(/pageSize/)]);
    expect(problems({ ...t, baseUrl: 'ftp://x' })).toEqual([expect.stringMatching(/baseUrl: must be an http/)]);
    expect(problems({ ...t, terminals: ['CQZ 1'] })).toEqual([expect.stringMatching(/terminals\.0|terminals\[0\]/)]);
  });

  it("the password is a secret scrubbed like the others'", () => {
    const tmp = tempDir('punchgate-bio-secret-');
    cleanups.push(() => tmp.cleanup());
    writeFileSync(tmp.path('hq.pass'), 'S3cret-bio\n');
    const cfg = bioConfig({ url: 'http://127.0.0.1:1' }, { passwordFile: tmp.path('hq.pass') });
    expect(terminalSecrets([cfg], {})).toEqual(['S3cret-bio']);
  });

  it('check reaches the server as a poll would, and says a refused licence and a wrong password in words', async () => {
    const sim = await startSim(20);
    cleanups.push(() => sim.stop());
    const ok = await checkBiotimeServer(bioConfig(sim), 0, { env: passwordEnv() });
    expect(ok).toMatchObject({ status: 'pass' });
    expect(ok.detail).toMatch(/account admin accepted \(JWT token\), 20 transactions, newest id 20, read by id/);
    const wrong = await checkBiotimeServer(bioConfig(sim), 0, { env: passwordEnv('nope') });
    expect(wrong).toMatchObject({ status: 'fail' });
    expect(wrong.detail).toMatch(/refuses the username and password/);
    // Once, as the check line names it already ("terminal hq: ..."): not "hq: hq: ...".
    expect(wrong.detail.startsWith(`${bioConfig(sim).name}:`)).toBe(false);
    expect(wrong.detail).not.toContain('nope');
    sim.setVariant({ licenceRefuses: true });
    const lic = await checkBiotimeServer(bioConfig(sim), 0, { env: passwordEnv() });
    expect(lic.detail).toMatch(/HTTP 403: "You do not have permission to perform this action\.".*licence/);
    expect(lic.fix).toMatch(/licence extended to the API/);
  });
});
