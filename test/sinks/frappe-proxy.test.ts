import { afterEach, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import { startHostileProxy, type HostileProxy, type ProxyStep } from '../helpers/hostile-proxy.js';
import { startScriptedHrms, type ScriptedHrms } from '../helpers/scripted-hrms.js';

/**
 * A Frappe site behind a proxy (HTTP_PROXY) that fails at the CONNECT: dropped, held or answered
 * 502. Each is one failure before sending, in the proxy's words, within the connect timeout.
 */
let proxy: HostileProxy | undefined;
let site: ScriptedHrms | undefined;
afterEach(async () => {
  await proxy?.stop();
  await site?.stop();
  proxy = site = undefined;
});

async function sendThrough(steps: ProxyStep[]): Promise<AttendanceAnswer> {
  proxy = await startHostileProxy(steps);
  site = await startScriptedHrms(() => ({ body: { message: { name: 'EMP-CKIN-1' } } }));
  const s = new FrappeSender(
    { baseUrl: site.url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency: 2, timeoutMs: 20_000 },
    { name: 'frappe-hr', connectTimeoutMs: 400, env: { HTTP_PROXY: proxy.url } },
  );
  try {
    const punch = { devicelogId: 'p-1', biometricCode: '101', logTime: '2026-11-02 08:00:00', terminal: 'gate' };
    return await s.send([{ ...punch, device: '', timezone: 'UTC' }], { token: 'pkey:psecret' });
  } finally {
    await s.close();
  }
}

describe('a Frappe site behind a proxy that fails at the CONNECT', () => {
  it('dropped or never answered: a failure before sending naming the proxy, one connection each', async () => {
    for (const step of ['close', 'silent'] as const) {
      const a = await sendThrough([step]);
      expect(a, step).toMatchObject({ kind: 'transient', afterSending: false });
      expect((a as { message: string }).message, step).toMatch(
        step === 'close' ? /the proxy closed the connection before opening a tunnel/ : /connect timeout/,
      );
      expect((a as { message: string }).message).toContain(`through the proxy ${proxy!.url} (HTTP_PROXY)`);
      expect(proxy!.connections()).toBeLessThanOrEqual(2);
      expect(site!.seen).toEqual([]);
      await proxy!.stop();
      await site!.stop();
      proxy = site = undefined;
    }
  }, 10_000);

  it('502: the proxy could not reach the site, not a refusal', async () => {
    const a = await sendThrough([502]);
    expect(a).toMatchObject({ kind: 'request-failed', httpStatus: 502 });
    expect((a as { message: string }).message).toMatch(/^the proxy could not reach the Frappe site/);
  }, 10_000);
});
