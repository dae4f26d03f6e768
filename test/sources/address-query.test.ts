import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { hrmsUrl } from '../../src/hrms/http.js';
import { BioHttp } from '../../src/sources/biotime/http.js';
import { HikHttp } from '../../src/sources/hikvision/http.js';

/**
 * A BioTime server or a Hikvision terminal behind a reverse proxy that wants a key in the query
 * (`http://gw/bt?key=...`, a form the HRMS's address has allowed since issue 30): the clients built
 * the request target from the address's path alone and dropped its query without a word (every
 * request refused by the proxy). The query now goes after the API path (and its own query), as the
 * HRMS's; the path prefix before it. A real loopback server records the request line it received.
 */
describe('a terminal address with a query', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise((r) => s.close(r));
  });

  /** A loopback server that records each request's target and answers 404. */
  const listen = async () => {
    const targets: string[] = [];
    server = createServer((req, res) => {
      targets.push(req.url ?? '');
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { base: `http://127.0.0.1:${port}`, targets };
  };

  it('BioTime: the API path under the prefix, then its own query, then the address key', async () => {
    const { base, targets } = await listen();
    const http = await BioHttp.open({ baseUrl: `${base}/bt/?key=k3y-1#frag`, timeoutMs: 5000 });
    try {
      await http.request('GET', '/iclock/api/transactions/?page=1');
      await http.request('POST', '/jwt-api-token-auth/');
    } finally {
      await http.close();
    }
    expect(targets).toEqual(['/bt/iclock/api/transactions/?page=1&key=k3y-1', '/bt/jwt-api-token-auth/?key=k3y-1']);
  });

  it('Hikvision: the ISAPI path, then format=json, then the address key', async () => {
    const { base, targets } = await listen();
    const http = await HikHttp.open({ url: `${base}?key=k3y-2`, username: 'admin', password: 'pw', timeoutMs: 5000 });
    try {
      await http.request('GET', '/ISAPI/System/deviceInfo?format=json');
    } finally {
      await http.close();
    }
    expect(targets).toEqual(['/ISAPI/System/deviceInfo?format=json&key=k3y-2']);
  });

  it('the HRMS address keeps its form (one helper for all)', () => {
    expect(hrmsUrl('https://hr.example.com/api?access_token=k', '/attendance')).toBe(
      'https://hr.example.com/api/attendance?access_token=k',
    );
    expect(hrmsUrl('https://hr.example.com/', 'x?a=1')).toBe('https://hr.example.com/x?a=1');
  });
});
