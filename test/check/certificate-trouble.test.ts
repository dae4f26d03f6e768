import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHrms } from '../../src/check/hrms-check.js';
import { checkOtherSinks } from '../../src/check/sink-check.js';
import { loadConfig } from '../../src/config/load.js';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient } from '../../src/hrms/attendance.js';
import { deliveryTroubleWords } from '../../src/status/alert-words.js';
import { Secrets } from '../../src/util/secrets.js';
import { caSignedCert } from '../helpers/tls.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A certificate signed by the CA in caFile, but expired, or made for another host name than the
 * one in baseUrl (the admin wrote the IP address): check, the delivery's error and the status all
 * said "the CA in hrms.caFile does not sign the HRMS's certificate" (or "not trusted (caFile)"),
 * and sent the admin after a CA file that was right. Each now names the cause and its fix.
 */
describe('a trusted certificate that is expired, or for another host name', () => {
  const tmp = tempDir('punchgate-cert-trouble-');
  const servers: Server[] = [];
  const serve = async (name: string, opts: Parameters<typeof caSignedCert>[1]) => {
    const dir = tmp.path(name);
    mkdirSync(dir);
    const { key, cert, caFile } = caSignedCert(dir, opts);
    const server = createServer({ key, cert }, (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"status":true,"payload":[]}');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile };
  };
  const config = (name: string, url: string, caFile: string) => {
    const file = tmp.path(`${name}.yaml`);
    writeFileSync(
      file,
      stringify({
        site: 'plant-t',
        journal: { path: tmp.path(`${name}.db`) },
        hrms: { baseUrl: url, tokenFile: tmp.path('token'), caFile },
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: url,
            apiKeyFile: tmp.path('key'),
            apiSecretFile: tmp.path('secret'),
            caFile,
          },
        ],
        terminals: [],
      }),
    );
    return loadConfig(file, () => []);
  };
  const deliver = async (cfg: ReturnType<typeof config>) => {
    const client = new AttendanceClient({
      hrms: cfg.hrms!,
      authPatterns: compilePatterns(cfg.delivery.patterns.authFailure),
      env: {},
    });
    try {
      const answer = await client.send(
        [{ biometriccode: '1001', logDate: '2026-12-01 08:00:00', devicelogId: 'plant-t-1' }],
        { token: 'Tk-4f9a2c7e1b' },
      );
      expect(answer).toMatchObject({ kind: 'transient', afterSending: false });
      return (answer as { message: string }).message;
    } finally {
      await client.close();
    }
  };
  beforeAll(() => {
    writeFileSync(tmp.path('token'), 'Tk-4f9a2c7e1b\n');
    writeFileSync(tmp.path('key'), 'k1\n');
    writeFileSync(tmp.path('secret'), 's1\n');
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    tmp.cleanup();
  });

  it('an expired certificate: renew it (or the clock), never a CA file', async () => {
    const { url, caFile } = await serve('expired', { dates: ['20200101000000Z', '20200102000000Z'] });
    const cfg = config('expired', url, caFile);
    const seed = await checkHrms(cfg, { env: {}, secrets: new Secrets() });
    expect(seed.status).toBe('fail');
    expect(seed.detail).toContain('certificate has expired');
    expect(seed.fix).toMatch(
      /^the server's certificate has expired: ask its administrator to renew it; check this box's date/,
    );
    expect(seed.fix).not.toMatch(/caFile/);
    const [sink] = await Promise.all(checkOtherSinks(cfg, { env: {}, secrets: new Secrets() }));
    expect(sink!.status).toBe('fail');
    expect(sink!.fix).toMatch(/^the server's certificate has expired/);
    expect(deliveryTroubleWords(await deliver(cfg))).toBe(
      "the HRMS's certificate has expired (renew it, or correct the box's clock)",
    );
  });

  it('a certificate for another host name: the name to write in baseUrl, never a CA file', async () => {
    const { url, caFile } = await serve('other-host', { san: 'DNS:hrms.example.com' });
    const cfg = config('other-host', url, caFile);
    const seed = await checkHrms(cfg, { env: {}, secrets: new Secrets() });
    expect(seed.status).toBe('fail');
    expect(seed.fix).toBe(
      "the server's certificate is made for another name than the host in hrms.baseUrl: write in hrms.baseUrl the host name the certificate holds (DNS:hrms.example.com), not an IP address or another alias",
    );
    const [sink] = await Promise.all(checkOtherSinks(cfg, { env: {}, secrets: new Secrets() }));
    expect(sink!.fix).toMatch(
      /^the server's certificate is made for another name than the host in sinks\[erp\]\.baseUrl/,
    );
    expect(deliveryTroubleWords(await deliver(cfg))).toBe(
      "the HRMS's certificate is made for another host name than the one in hrms.baseUrl",
    );
  });

  it('a certificate the CA in caFile does not sign is still told so', async () => {
    const { url } = await serve('signed', {});
    const other = await serve('other-ca', {});
    const cfg = config('wrong-ca', url, other.caFile);
    const seed = await checkHrms(cfg, { env: {}, secrets: new Secrets() });
    expect(seed.fix).toMatch(/^the CA in hrms\.caFile \(.*\) does not sign the HRMS's certificate/);
    expect(deliveryTroubleWords(await deliver(cfg))).toBe(
      "the HRMS's certificate is not trusted (hrms.caFile, or the box's clock)",
    );
  });
});
