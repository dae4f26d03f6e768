import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { createProxy, type ProxyServer } from 'proxy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import { AttendanceClient } from '../../src/hrms/attendance.js';
import { Journal } from '../../src/journal/index.js';
import { wallClockAt } from '../../src/punch.js';
import { acceptEvery, startScriptedHrms, type ScriptedHrms } from '../helpers/scripted-hrms.js';
import { tempDir } from '../helpers/tmp.js';
import { selfSignedCert } from '../helpers/tls.js';

/**
 * The HRMS reached through a real HTTP proxy on loopback (the `proxy` package: CONNECT, Basic
 * proxy authentication): by hrms.proxy, by HTTP(S)_PROXY, around it by NO_PROXY; a 407 is
 * named as such, and the proxy's credentials never appear in any output.
 */
const USER = 'gate';
const PASSWORD = 'pr0xy-Secret-pass';
const TOKEN = 'proxy-test-token-31';
const AUTH = compilePatterns(['bearer token']);
const punch = { biometriccode: '101', logDate: '2026-11-01 08:00:00', devicelogId: 's-1' };

let proxy: ProxyServer;
let proxyUrl: string;
/** CONNECT targets the proxy was asked for, and whether it let them through. */
const tunnels: Array<{ target: string; allowed: boolean }> = [];
let tmp: ReturnType<typeof tempDir>;
let plain: ScriptedHrms;
let tls: ScriptedHrms;
let caFile: string;

beforeAll(async () => {
  tmp = tempDir('punchgate-proxy-');
  const cert = selfSignedCert(tmp.dir);
  caFile = cert.certFile;
  plain = await startScriptedHrms(acceptEvery);
  tls = await startScriptedHrms(acceptEvery, { tls: { key: cert.key, cert: cert.cert } });
  proxy = createProxy(createServer());
  const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  proxy.authenticate = (req: IncomingMessage) => {
    const allowed = req.headers['proxy-authorization'] === expected;
    tunnels.push({ target: req.url ?? '', allowed });
    return allowed;
  };
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((r) => proxy.close(() => r()));
  await plain.stop();
  await tls.stop();
  tmp.cleanup();
});
afterEach(() => {
  tunnels.length = 0;
  plain.seen.length = 0;
  tls.seen.length = 0;
});

const withCredentials = (user = USER, password = PASSWORD) =>
  proxyUrl.replace('http://', `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`);

function client(
  baseUrl: string,
  over: { proxy?: string | false; proxyCredentialsFile?: string; caFile?: string } = {},
  env: NodeJS.ProcessEnv = {},
) {
  return new AttendanceClient({
    // Long: the proxy and the HRMS answer from the test's own process, which a loaded CI box may
    // hold for a second or more (no test here waits for a timeout).
    hrms: { baseUrl, attendancePath: '/att', timeoutMs: 20_000, connectTimeoutMs: 5000, ...over },
    authPatterns: AUTH,
    env,
  });
}

async function sendVia(c: AttendanceClient) {
  try {
    return await c.send([punch], { token: TOKEN });
  } finally {
    await c.close();
  }
}

const host = (s: ScriptedHrms) => new URL(s.url).host;

describe('an HRMS behind a proxy', () => {
  it('hrms.proxy: an https HRMS (private CA) through a CONNECT tunnel, credentials from the URL', async () => {
    const c = client(tls.url, { proxy: withCredentials(), caFile });
    expect(c.route()).toBe(`through the proxy ${proxyUrl} (hrms.proxy)`);
    expect(await sendVia(c)).toMatchObject({ kind: 'answered', results: [{ status: true }] });
    expect(tunnels).toEqual([{ target: host(tls), allowed: true }]);
    expect(tls.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The proxy's credentials go to the proxy only, never to the HRMS.
    expect(tls.seen[0]!.headers['proxy-authorization']).toBeUndefined();
  });

  it('hrms.proxyCredentialsFile: the credentials from a file, for an http HRMS too', async () => {
    writeFileSync(tmp.path('proxy-credentials'), `${USER}:${PASSWORD}\n`);
    const c = client(plain.url, { proxy: proxyUrl, proxyCredentialsFile: tmp.path('proxy-credentials') });
    expect(await sendVia(c)).toMatchObject({ kind: 'answered' });
    expect(tunnels).toEqual([{ target: host(plain), allowed: true }]);
  });

  it('HTTPS_PROXY / HTTP_PROXY (lower case first, as curl), and hrms.proxy: false ignores them', async () => {
    expect(await sendVia(client(tls.url, { caFile }, { HTTPS_PROXY: withCredentials() }))).toMatchObject({
      kind: 'answered',
    });
    expect(
      await sendVia(client(plain.url, {}, { http_proxy: withCredentials(), HTTP_PROXY: 'http://127.0.0.1:1' })),
    ).toMatchObject({
      kind: 'answered',
    });
    expect(tunnels.map((t) => t.target)).toEqual([host(tls), host(plain)]);
    expect(client(plain.url, {}, { HTTP_PROXY: proxyUrl }).route()).toBe(`through the proxy ${proxyUrl} (HTTP_PROXY)`);
    // As curl: an https HRMS does not go through http_proxy.
    expect(client(tls.url, { caFile }, { HTTP_PROXY: proxyUrl }).route()).toBe('directly (no proxy set)');
    tunnels.length = 0;
    const off = client(plain.url, { proxy: false }, { HTTP_PROXY: withCredentials() });
    expect(off.route()).toBe('directly (hrms.proxy: false)');
    expect(await sendVia(off)).toMatchObject({ kind: 'answered' });
    expect(tunnels).toEqual([]);
  });

  it('NO_PROXY sends the HRMS around the proxy', async () => {
    for (const noProxy of ['127.0.0.1', 'example.com, 127.0.0.1', `127.0.0.1:${plain.port}`, '*']) {
      const c = client(plain.url, {}, { HTTP_PROXY: withCredentials(), NO_PROXY: noProxy });
      expect(c.route(), noProxy).toBe('directly (the HRMS host is in NO_PROXY)');
      expect(await sendVia(c)).toMatchObject({ kind: 'answered' });
    }
    expect(tunnels).toEqual([]);
    expect(plain.seen).toHaveLength(4);
    // Another port is not bypassed.
    const other = client(plain.url, {}, { HTTP_PROXY: withCredentials(), no_proxy: '127.0.0.1:1' });
    expect(await sendVia(other)).toMatchObject({ kind: 'answered' });
    expect(tunnels).toHaveLength(1);
  });

  it('a 407 is "the proxy refused the credentials": a failure of the request, credentials never in the message', async () => {
    const a = await sendVia(client(tls.url, { proxy: withCredentials(USER, 'wrong-Password-9'), caFile }));
    expect(a).toMatchObject({ kind: 'request-failed', httpStatus: 407 });
    expect((a as { message: string }).message).toMatch(/^the proxy refused the credentials \(HTTP 407\)/);
    expect(JSON.stringify(a)).not.toMatch(/wrong-Password-9|d3JvbmctUGFzc3dvcmQtOQ/);
    expect(tls.seen).toEqual([]);
    const none = await sendVia(client(plain.url, { proxy: proxyUrl }));
    expect(none).toMatchObject({ kind: 'request-failed', httpStatus: 407 });
  });
});

describe('check and flush through a proxy (real processes)', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv) => {
    const full: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC', ...env };
    for (const k of ['PUNCHGATE_HRMS_TOKEN', 'CREDENTIALS_DIRECTORY']) delete full[k];
    const child = spawn(process.execPath, ['dist/punchgate.js', ...args], { env: full });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise<{ code: number | null; out: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, out })),
    );
  };

  function site(proxyLine: string): string {
    const dir = tempDir('punchgate-proxy-site-');
    writeFileSync(dir.path('token'), TOKEN);
    const cfg = dir.path('punchgate.yaml');
    writeFileSync(
      cfg,
      [
        'site: plant-p',
        'journal: { path: journal.db }',
        'hrms:',
        `  baseUrl: ${tls.url}`,
        '  tokenFile: token',
        `  caFile: ${caFile}`,
        '  timeoutMs: 20000',
        proxyLine,
        'delivery: { retry: { baseMs: 10, maxMs: 20 } }',
      ].join('\n'),
    );
    const j = Journal.open({ path: dir.path('journal.db'), site: 'plant-p', mode: 'owner' });
    j.ingest([{ terminal: 'gate-1', biometricCode: '101', logTime: wallClockAt(Date.now() - 60_000) }]);
    j.close();
    return cfg;
  }

  it('check says which proxy (without credentials); a 407 is named; flush exits 75; the password never printed', async () => {
    const good = site(`  proxy: ${withCredentials()}`);
    const ok = await run(['--config', good, 'check', '--json'], {});
    const hrmsCheck = (
      JSON.parse(ok.out.slice(ok.out.indexOf('{'))) as {
        checks: Array<{ name: string; status: string; detail: string }>;
      }
    ).checks.find((c) => c.name === 'hrms');
    expect(hrmsCheck).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining(`reached through the proxy ${proxyUrl} (hrms.proxy)`),
    });

    const bad = site(`  proxy: ${withCredentials(USER, 'Wrong-pass-2222')}`);
    const refused = await run(['--config', bad, 'check'], {});
    expect(refused.out).toMatch(
      /^FAIL hrms: the proxy refused the credentials \(HTTP 407\); reached through the proxy http:\/\/127\.0\.0\.1:\d+ \(hrms\.proxy\)/m,
    );
    const flushed = await run(['--config', bad, 'flush', '--max-wait', '1'], {});
    expect(flushed.code).toBe(75);
    expect(flushed.out).toMatch(/HRMS delivery to \S+: request failed: the proxy refused the credentials \(HTTP 407\)/);

    const viaEnv = site('');
    const envCheck = await run(['--config', viaEnv, 'check'], {
      HTTPS_PROXY: withCredentials(USER, 'Wrong-pass-2222'),
    });
    expect(envCheck.out).toMatch(
      /FAIL hrms: the proxy refused the credentials \(HTTP 407\); reached through the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTPS_PROXY\)/,
    );
    const everything = [ok.out, refused.out, flushed.out, envCheck.out].join('\n');
    for (const secret of [
      PASSWORD,
      'Wrong-pass-2222',
      Buffer.from(`${USER}:Wrong-pass-2222`).toString('base64'),
      TOKEN,
    ])
      expect(everything).not.toContain(secret);
  }, 60_000);
});
