import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHrms } from '../../src/check/hrms-check.js';
import { checkOtherSinks } from '../../src/check/sink-check.js';
import { loadConfig } from '../../src/config/load.js';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient } from '../../src/hrms/attendance.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { deliveryTroubleWords } from '../../src/status/alert-words.js';
import { Secrets } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `https://` written for a server that speaks plain HTTP (a new-user trial wrote it for the HRMS
 * simulator): OpenSSL's "wrong version number". It was said in OpenSSL's own words
 * (`80FC...:error:0A00010B:SSL routines:ssl3_get_record:...`) with "the HRMS certificate is not
 * trusted: set hrms.caFile", and the status said the same: no CA mends an address. Now check, the
 * HTTP client and the status say that the server answers plain HTTP, and that the address is wrong.
 */
describe('an https:// address for a server of plain HTTP', () => {
  const tmp = tempDir('punchgate-no-tls-');
  let hrms: HrmsSim;
  let frappe: FrappeSim;
  const https = (url: string) => url.replace(/^http:/, 'https:');
  const config = () => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      stringify({
        site: 'plant-t',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: https(hrms.url), tokenFile: tmp.path('token') },
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: https(frappe.url),
            apiKeyFile: tmp.path('key'),
            apiSecretFile: tmp.path('secret'),
          },
        ],
        terminals: [],
      }),
    );
    return loadConfig(file, () => []);
  };
  beforeAll(async () => {
    writeFileSync(tmp.path('token'), 'Tk-4f9a2c7e1b\n');
    writeFileSync(tmp.path('key'), 'k1\n');
    writeFileSync(tmp.path('secret'), 's1\n');
    hrms = await startHrmsSim({ port: 0 });
    frappe = await startFrappeSim({ port: 0, keys: [{ key: 'k1', secret: 's1' }] });
  });
  afterAll(async () => {
    await hrms.stop();
    await frappe.stop();
    tmp.cleanup();
  });

  it('check says it of the HRMS and of a sink, with the address to correct, never a CA', async () => {
    const cfg = config();
    const seed = await checkHrms(cfg, { env: {}, secrets: new Secrets() });
    expect(seed.status).toBe('fail');
    expect(seed.detail).toContain(
      `cannot reach the HRMS at ${https(hrms.url)}: the server answers in plain HTTP there, not HTTPS (ERR_SSL_WRONG_VERSION_NUMBER)`,
    );
    expect(seed.detail).not.toMatch(/SSL routines|0A00010B/);
    expect(seed.fix).toMatch(
      /^hrms\.baseUrl says https:\/\/ but the server answers plain HTTP on that port: correct the port/,
    );
    expect(seed.fix).not.toMatch(/caFile|certificate/);

    const [sink] = await Promise.all(checkOtherSinks(cfg, { env: {}, secrets: new Secrets() }));
    expect(sink!.status).toBe('fail');
    expect(sink!.detail).toContain('the server answers in plain HTTP there, not HTTPS');
    expect(sink!.fix).toMatch(/^sinks\[erp\]\.baseUrl says https:\/\/ but the server answers plain HTTP/);
    expect(sink!.fix).not.toMatch(/caFile|certificate/);
  });

  it("the delivery's error and the status's words say it too", async () => {
    const cfg = config();
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
      expect(answer).toMatchObject({ kind: 'transient' });
      const message = (answer as { message: string }).message;
      expect(message).toBe('the server answers in plain HTTP there, not HTTPS (ERR_SSL_WRONG_VERSION_NUMBER)');
      expect(deliveryTroubleWords(message)).toBe(
        'the HRMS answers plain HTTP, not HTTPS, at hrms.baseUrl (its port or its https:// is wrong)',
      );
    } finally {
      await client.close();
    }
    expect(hrms.attendance()).toHaveLength(0);
  });
});
