import { afterEach, describe, expect, it } from 'vitest';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient } from '../../src/hrms/attendance.js';
import { hrmsReachFix } from '../../src/hrms/reach-fix.js';
import { startHostileProxy, type HostileProxy } from '../helpers/hostile-proxy.js';
import { acceptEvery, startScriptedHrms, type ScriptedHrms } from '../helpers/scripted-hrms.js';

/**
 * A proxy that fails at the CONNECT itself: it closes the connection before answering, or never
 * answers. Each is one failure, within the connect timeout, naming the proxy (never its password);
 * undici alone retried the first thousands of times a second and held the second five minutes.
 */
const PASSWORD = 'Tunnel-pass-77';
const AUTH = compilePatterns(['bearer token']);
const punch = { biometriccode: '101', logDate: '2026-11-01 08:00:00', devicelogId: 's-1' };

let proxy: HostileProxy | undefined;
let hrms: ScriptedHrms | undefined;
afterEach(async () => {
  await proxy?.stop();
  await hrms?.stop();
  proxy = hrms = undefined;
});

async function sendThrough(p: HostileProxy, h: ScriptedHrms) {
  const c = new AttendanceClient({
    hrms: {
      baseUrl: h.url,
      attendancePath: '/att',
      // The deadline of the whole exchange is long: only the connect timeout may end these.
      timeoutMs: 20_000,
      connectTimeoutMs: 400,
      proxy: p.url.replace('http://', `http://gate:${PASSWORD}@`),
    },
    authPatterns: AUTH,
    env: {},
  });
  const started = Date.now();
  try {
    return { answer: await c.send([punch], { token: 'tok-tunnel-1' }), ms: Date.now() - started };
  } finally {
    await c.close();
  }
}

describe('a proxy that fails at the CONNECT', () => {
  it('closes the connection before answering: one connection, a failure before sending that names the proxy', async () => {
    proxy = await startHostileProxy(['close']);
    hrms = await startScriptedHrms(acceptEvery);
    const { answer } = await sendThrough(proxy, hrms);
    expect(answer).toMatchObject({ kind: 'transient', afterSending: false });
    const message = (answer as { message: string }).message;
    expect(message).toContain('the proxy closed the connection before opening a tunnel to the HRMS');
    expect(message).toContain(`through the proxy ${proxy.url} (hrms.proxy)`);
    expect(JSON.stringify(answer)).not.toContain(PASSWORD);
    expect(proxy.connections()).toBe(1);
    expect(hrms.seen).toEqual([]);
    expect(hrmsReachFix(message)).toMatch(/^check the proxy's address and port \(hrms\.proxy or HTTPS_PROXY\)/);
  }, 10_000);

  it('never answers: a connect timeout after connectTimeoutMs, not a request held for minutes', async () => {
    proxy = await startHostileProxy(['silent']);
    hrms = await startScriptedHrms(acceptEvery);
    const { answer, ms } = await sendThrough(proxy, hrms);
    expect(answer).toMatchObject({ kind: 'transient', afterSending: false });
    expect((answer as { message: string }).message).toMatch(/connect timeout.*through the proxy/);
    expect(ms).toBeLessThan(5000);
    expect(proxy.connections()).toBe(1);
  }, 10_000);

  it('502, 503 and 504 say the proxy could not reach the HRMS; 403 that it refused', async () => {
    hrms = await startScriptedHrms(acceptEvery);
    for (const status of [502, 503, 504, 403]) {
      proxy = await startHostileProxy([status]);
      const { answer } = await sendThrough(proxy, hrms);
      expect(answer, String(status)).toMatchObject({ kind: 'request-failed', httpStatus: status });
      expect((answer as { message: string }).message, String(status)).toMatch(
        status === 403
          ? /^the proxy refused to connect to the HRMS \(HTTP 403 from the proxy\): ask the proxy's administrator/
          : new RegExp(
              `^the proxy could not reach the HRMS \\(HTTP ${status} from the proxy\\): check that the HRMS is up`,
            ),
      );
      await proxy.stop();
    }
    proxy = undefined;
  }, 10_000);

  it('the tunnel that opens next time carries the batch', async () => {
    proxy = await startHostileProxy(['close', 'pass']);
    hrms = await startScriptedHrms(acceptEvery);
    expect((await sendThrough(proxy, hrms)).answer).toMatchObject({ kind: 'transient' });
    expect((await sendThrough(proxy, hrms)).answer).toMatchObject({ kind: 'answered', results: [{ status: true }] });
    expect(hrms.seen).toHaveLength(1);
    expect(proxy.credentials[0]).toBe(`Basic ${Buffer.from(`gate:${PASSWORD}`).toString('base64')}`);
  }, 10_000);
});
