import { afterEach, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import type { OdooSinkConfig } from '../../src/config/sinks.js';
import { BUILT_IN_MAKERS } from '../../src/sinks/build.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { startHostileProxy, type HostileProxy } from '../helpers/hostile-proxy.js';
import { startScriptedHrms, type ScriptedHrms } from '../helpers/scripted-hrms.js';

/**
 * An Odoo sink's failures name that sink's keys and the proxy it went through, as the seed's and
 * Frappe's do: a redirect told the admin of an Odoo sink to check hrms.baseUrl (the shared redirect
 * words were the seed HRMS's), and a network failure through a proxy did not say which proxy.
 */
let proxy: HostileProxy | undefined;
let site: ScriptedHrms | undefined;
afterEach(async () => {
  await proxy?.stop();
  await site?.stop();
  proxy = site = undefined;
});

const PUNCH: SinkPunch = {
  devicelogId: 'p-1',
  biometricCode: '1001',
  logTime: '2026-11-02 08:00:00',
  terminal: 'gate',
  device: '',
  timezone: 'UTC',
};

const SINK = { baseUrl: '', database: 'odoo', api: 'json2', timeoutMs: 5000 } as const;

/** One punch to the Odoo sink `erp` as the daemon builds it (BUILT_IN_MAKERS: the name passed on). */
async function sendAsBuilt(baseUrl: string): Promise<AttendanceAnswer> {
  const sender = BUILT_IN_MAKERS.odoo!({ ...SINK, name: 'erp', kind: 'odoo', baseUrl } as OdooSinkConfig);
  try {
    return await sender.send([PUNCH], { token: 'odoo-api-key-1' });
  } finally {
    await sender.close?.();
  }
}

/** One punch to the Odoo sink `erp` with `env`'s proxy variables. */
async function sendThrough(baseUrl: string, env: NodeJS.ProcessEnv): Promise<AttendanceAnswer> {
  const sender = new OdooSender({ ...SINK, baseUrl }, { name: 'erp', env });
  try {
    return await sender.send([PUNCH], { token: 'odoo-api-key-1' });
  } finally {
    await sender.close();
  }
}

const messageOf = (a: AttendanceAnswer) => ('message' in a ? a.message : '');

describe("an Odoo sink's failure words", () => {
  it("a redirect names the sink's own baseUrl key, never hrms.baseUrl", async () => {
    site = await startScriptedHrms(() => ({ status: 302, headers: { location: 'https://elsewhere.example/odoo' } }));
    const a = await sendAsBuilt(site.url);
    expect(a).toMatchObject({ kind: 'request-failed', httpStatus: 302 });
    expect(messageOf(a)).toContain('check sinks[erp].baseUrl');
    expect(messageOf(a)).not.toContain('hrms.baseUrl');
  });

  it('a network failure through a proxy names the proxy, never its password', async () => {
    proxy = await startHostileProxy(['close']);
    site = await startScriptedHrms(() => ({ body: [] }));
    const shown = proxy.url;
    const withPassword = shown.replace('http://', 'http://gate:pr0xy-s3cret@');
    const a = await sendThrough(site.url, { HTTP_PROXY: withPassword });
    expect(a).toMatchObject({ kind: 'transient', afterSending: false });
    expect(messageOf(a)).toContain(`through the proxy ${shown} (HTTP_PROXY)`);
    expect(JSON.stringify(a)).not.toContain('pr0xy-s3cret');
    expect(site.seen).toEqual([]);
  });
});
