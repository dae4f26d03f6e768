import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHrms } from '../../src/check/hrms-check.js';
import { checkOtherSinks } from '../../src/check/sink-check.js';
import { loadConfig } from '../../src/config/load.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';
import { selfSignedCert } from '../helpers/tls.js';

/**
 * `punchgate check`'s words for a sender that cannot be built, or a certificate it does not trust,
 * name the key that failed (found by an adversarial trial: a missing caFile was answered "make
 * hrms.proxyCredentialsFile readable", a caFile with the wrong CA "set hrms.caFile").
 */
describe('check names the key that failed', () => {
  const tmp = tempDir('punchgate-check-words-');
  let server: Server;
  let url = '';
  const deps = () => ({ env: {}, secrets: new Secrets() });
  const config = (c: Record<string, unknown>) => {
    const file = tmp.path(`c-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, stringify({ site: 'plant-c', journal: { path: tmp.path('journal.db') }, terminals: [], ...c }));
    return loadConfig(file, () => []);
  };
  const hrms = (extra: Record<string, unknown>) =>
    config({ hrms: { baseUrl: url, tokenFile: tmp.path('token'), timeoutMs: 3000, ...extra } });

  beforeAll(async () => {
    writeFileSync(tmp.path('token'), 'tok-1\n');
    writeFileSync(tmp.path('junk.pem'), 'not a certificate\n');
    const served = selfSignedCert(tmp.path(''), 'hrms');
    selfSignedCert(tmp.path(''), 'other-ca');
    server = createServer({ key: served.key, cert: served.cert }, (_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  it('a missing hrms.caFile: the caFile, not the proxy', async () => {
    const r = await checkHrms(hrms({ caFile: tmp.path('missing.pem') }), deps());
    expect(r.status).toBe('fail');
    expect(r.detail).toBe(`hrms.caFile: ${tmp.path('missing.pem')} does not exist`);
    expect(r.fix).toBe('put the CA certificate (PEM) there, or remove caFile');
    expect(`${r.detail} ${r.fix}`).not.toMatch(/proxy/i);
  });

  it('a hrms.caFile without a certificate in it is named as such', async () => {
    const r = await checkHrms(hrms({ caFile: tmp.path('junk.pem') }), deps());
    expect(r.detail).toBe(`hrms.caFile: ${tmp.path('junk.pem')} holds no PEM certificate that can be read`);
    expect(r.fix).toContain(`put the PEM certificate of the CA that signs the server's certificate in`);
  });

  it('a missing hrms.proxyCredentialsFile: the proxy credentials', async () => {
    const r = await checkHrms(
      hrms({ proxy: 'http://127.0.0.1:3128', proxyCredentialsFile: tmp.path('proxy-creds') }),
      deps(),
    );
    expect(r.detail).toBe(`hrms.proxyCredentialsFile: ${tmp.path('proxy-creds')} does not exist`);
    expect(r.fix).toBe('put one line user:password there, or remove proxyCredentialsFile');
  });

  it('a caFile with the wrong CA: that CA does not sign the certificate, not "set caFile"', async () => {
    const r = await checkHrms(hrms({ caFile: tmp.path('other-ca-cert.pem') }), deps());
    expect(r.status).toBe('fail');
    expect(r.fix).toContain(`the CA in hrms.caFile (${tmp.path('other-ca-cert.pem')}) does not sign`);
    expect(r.fix).not.toContain('set hrms.caFile');
  });

  it('no caFile and a private CA: set caFile, as before', async () => {
    const r = await checkHrms(hrms({}), deps());
    expect(r.fix).toContain("set hrms.caFile to that CA's PEM file");
  });

  it('the right CA in caFile: the server is reached (its "{}" is the only fault named)', async () => {
    const r = await checkHrms(hrms({ caFile: tmp.path('hrms-cert.pem') }), deps());
    expect(r.detail).toContain("with something that is not the HRMS's answer");
    expect(`${r.detail} ${r.fix}`).not.toMatch(/caFile|certificate/);
  });

  it('a Frappe sink: its own key, sinks[NAME].caFile, missing and wrong', async () => {
    writeFileSync(tmp.path('key'), 'k\n');
    writeFileSync(tmp.path('secret'), 's\n');
    const frappe = (caFile: string) =>
      config({
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: url,
            apiKeyFile: tmp.path('key'),
            apiSecretFile: tmp.path('secret'),
            caFile,
            timeoutMs: 3000,
          },
        ],
      });
    const [missing] = await Promise.all(checkOtherSinks(frappe(tmp.path('missing.pem')), deps()));
    expect(missing!.detail).toBe(`sinks[erp].caFile: ${tmp.path('missing.pem')} does not exist`);
    expect(missing!.fix).toBe('put the CA certificate (PEM) there, or remove caFile');
    const [wrong] = await Promise.all(checkOtherSinks(frappe(tmp.path('other-ca-cert.pem')), deps()));
    expect(wrong!.status).toBe('fail');
    expect(wrong!.fix).toContain(`the CA in sinks[erp].caFile (${tmp.path('other-ca-cert.pem')}) does not sign`);
  });
});
