import { request } from 'node:http';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, spawnDaemon, statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { hostName, hostRule } from '../../src/web/host-check.js';

/** One GET with a Host header of our choosing (fetch would not send a forged one). */
function getWithHost(url: string, path: string, host: string | undefined, headers: Record<string, string> = {}) {
  const u = new URL(url);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'GET',
        setHost: false,
        headers: { ...(host === undefined ? {} : { host }), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP/1.0 request without any Host header, on a raw socket. */
function getWithoutHost(url: string, path: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => s.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => (out += c));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

const ENDPOINTS = ['/', '/status.json', '/metrics', '/livez', '/readyz'];
/** Names a rebinding page can make a browser send: the attacker's own, in every spelling. */
const FORGED = [
  'evil.example',
  'evil.example:9330',
  'EVIL.example.',
  'localhost.evil.example',
  '127.0.0.1.nip.io',
  'localhost@evil.example',
  'attacker.test:80',
  '',
  'x'.repeat(300),
  '127.0.0.1 evil.example',
];

describe('the status page answers loopback names only (DNS rebinding)', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('punchgate run refuses every forged Host on every endpoint, answers loopback names and the listen address, and logs each name once', async () => {
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const port = new URL(url).port;
    for (const path of ENDPOINTS) {
      for (const host of FORGED) {
        const r = await getWithHost(url, path, host);
        expect([400, 403], `${path} Host: ${host}`).toContain(r.status);
        expect(r.text).not.toMatch(/plant-t|punchgate_|"site"/);
      }
    }
    const forbidden = await getWithHost(url, '/', 'evil.example');
    expect(forbidden.text).toMatch(/answers only to localhost.*status\.allowedHosts/);
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      'app.localhost:8080',
      'LOCALHOST',
      '127.8.9.1',
      `localhost:1`,
    ]) {
      const r = await getWithHost(url, '/status.json', host);
      expect(r.status, host).toBe(200);
      expect(r.text).toContain('"site": "plant-t"');
    }
    // HTTP/1.0 without Host (no browser sends it): the box's own tools.
    expect(await getWithoutHost(url, '/livez')).toMatch(/^HTTP\/1\.[01] 200/);
    await waitFor(() => /refused a request for another name/.test(d.output()), 20_000, 'the refusal logged');
    const lines = d
      .output()
      .split('\n')
      .filter((l) => l.includes('refused a request for another name'));
    // Each name once (20 at most), printable: no raw control character or 300-character name.
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(lines.filter((l) => l.includes('"evil.example"'))).toHaveLength(1);
    expect(d.output()).not.toContain('x'.repeat(120));
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 60_000);

  it('with allowedHosts the page answers those names too; with a token the Host is not looked at', async () => {
    const stack = await startStack({ terminals: 0, status: { allowedHosts: ['punchgate.plant.lan'] } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    expect((await getWithHost(url, '/status.json', 'punchgate.plant.lan:9330')).status).toBe(200);
    expect((await getWithHost(url, '/status.json', 'PUNCHGATE.plant.lan')).status).toBe(200);
    expect((await getWithHost(url, '/status.json', 'punchgate.plant.lan.evil.example')).status).toBe(403);
    d.child.kill('SIGTERM');
    await d.exited;

    const { writeFileSync } = await import('node:fs');
    writeFileSync(stack.tmp.path('page-token'), 'page-token-1b2c3d4e\n');
    stack.writeConfig(undefined, (c) => {
      c.status = { ...c.status, authTokenFile: stack.tmp.path('page-token') } as typeof c.status;
    });
    const t = spawnDaemon(stack.configPath);
    cleanups.push(() => t.child.exitCode === null && t.child.kill('SIGKILL'));
    const tokenUrl = await statusUrl(t);
    const bearer = { authorization: 'Bearer page-token-1b2c3d4e' };
    expect((await getWithHost(tokenUrl, '/status.json', 'evil.example')).status).toBe(401);
    expect((await getWithHost(tokenUrl, '/status.json', 'prometheus.lan', bearer)).status).toBe(200);
    t.child.kill('SIGTERM');
    await t.exited;
  }, 60_000);

  it('the rule: loopback names, the listen address, and on a wildcard listen the box name and addresses', () => {
    const loop = hostRule({ host: '127.0.0.1', port: 9330, loopback: true });
    for (const ok of ['localhost', 'localhost:9330', 'a.b.localhost', '127.0.0.1:1', '[::1]:9330', '[::1]'])
      expect(loop(ok), ok).toBe(true);
    for (const bad of ['evil.example', hostname(), '10.1.2.3', '[::ffff:7f00:1]x', '0.0.0.0'])
      expect(loop(bad), bad).toBe(false);
    expect(loop(undefined)).toBe(true);
    const lan = hostRule({ host: '192.168.7.5', port: 9330, loopback: false });
    expect(lan('192.168.7.5:9330')).toBe(true);
    expect(lan(hostname())).toBe(true);
    expect(lan('192.168.7.6')).toBe(false);
    const any = hostRule({ host: '0.0.0.0', port: 9330, loopback: false }, ['hr-box.plant.lan']);
    expect(any('hr-box.plant.lan')).toBe(true);
    expect(any('127.0.0.1')).toBe(true);
    expect(any('evil.example')).toBe(false);
    expect(hostName('Evil.Example.:80')).toBe('evil.example');
    expect(hostName('a b')).toBeUndefined();
  });
});
