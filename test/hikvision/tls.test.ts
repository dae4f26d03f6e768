import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/check/runner.js';
import { HikTlsError, HikvisionClient } from '../../src/sources/hikvision/index.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { makeCerts } from './certs.js';
import { PASSWORD } from './helpers.js';

let certs: ReturnType<typeof makeCerts>;
let sim: HikvisionSim;
let signedSim: HikvisionSim;

beforeAll(async () => {
  certs = makeCerts();
  sim = await startHikvisionSim({ password: PASSWORD, tls: certs.device });
  signedSim = await startHikvisionSim({ password: PASSWORD, tls: certs.signed });
});
afterAll(async () => {
  await sim?.stop();
  await signedSim?.stop();
  certs?.cleanup();
});

const connect = async (url: string, trust: { tlsFingerprint?: string; ca?: string }) => {
  const c = await HikvisionClient.open({ url, username: 'admin', password: PASSWORD, timeoutMs: 5000, ...trust });
  try {
    return await c.deviceInfo();
  } finally {
    await c.http.close();
  }
};

describe('TLS to Hikvision terminals', () => {
  it('accepts the pinned self-signed certificate', async () => {
    const info = await connect(sim.url, { tlsFingerprint: certs.device.fingerprint });
    expect(info.serialNumber).toMatch(/^DS-K1T/);
  });

  it('refuses a device with another certificate than the pinned one, before sending anything', async () => {
    sim.clearRequests();
    const e = await connect(sim.url, { tlsFingerprint: certs.other.fingerprint }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HikTlsError);
    expect((e as HikTlsError).message).toContain(
      `has the fingerprint sha256:${certs.device.fingerprint}, not the pinned one`,
    );
    expect(sim.requests()).toEqual([]);
  });

  it('refuses a self-signed certificate without a pin (verification is never off)', async () => {
    const e = await connect(sim.url, {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HikTlsError);
    expect((e as Error).message).toMatch(/is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\): pin it with tlsFingerprint/);
  });

  it('accepts a certificate signed by the CA of caFile, and refuses one it did not sign', async () => {
    expect((await connect(signedSim.url, { ca: certs.ca.cert })).serialNumber).toMatch(/^DS-K1T/);
    const e = await connect(sim.url, { ca: certs.ca.cert }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HikTlsError);
  });

  it('check shows the fingerprint to pin, and passes once it is pinned', async () => {
    const { writeFileSync } = await import('node:fs');
    const { tempDir } = await import('../helpers/tmp.js');
    const tmp = tempDir();
    try {
      const write = (extra: Record<string, unknown>) =>
        writeFileSync(
          tmp.path('pg.yaml'),
          JSON.stringify({
            site: 's',
            journal: { path: tmp.path('j.db') },
            hrms: { baseUrl: 'http://127.0.0.1:9' },
            terminals: [{ name: 'reception', kind: 'hikvision', url: sim.url, timeoutMs: 5000, ...extra }],
          }),
        );
      const env = { PUNCHGATE_TERMINAL_RECEPTION_PASSWORD: PASSWORD };
      write({});
      const before = (await runChecks({ configPath: tmp.path('pg.yaml'), env })).checks.find(
        (c) => c.name === 'terminal reception',
      )!;
      expect(before.status).toBe('fail');
      expect(before.fix).toContain(`tlsFingerprint: "sha256:${certs.device.fingerprint}"`);
      write({ tlsFingerprint: `sha256:${certs.device.fingerprint}` });
      const after = (await runChecks({ configPath: tmp.path('pg.yaml'), env })).checks.find(
        (c) => c.name === 'terminal reception',
      )!;
      expect(after.status, after.detail).toBe('pass');
      expect(after.detail).toMatch(/\(TLS, certificate pinned\), serial DS-K1T.*event search by serial number/);
    } finally {
      tmp.cleanup();
    }
  });
});
