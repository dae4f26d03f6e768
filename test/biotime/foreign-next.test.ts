import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { bioConfig, journalFixture, journalKeys, passwordEnv, PASSWORD } from './helpers.js';

/**
 * A BioTime server as some installs answer (minimal reconstruction of the variants the capture
 * trial names, rows as in the reference notes' sinks-and-sources-2.md): only `/api-token-auth/`
 * with the token under `data.token`; a token that expires in the middle of the paging (401);
 * `next` an absolute URL on another host and port (a server behind a proxy or a load balancer
 * that writes its own address); `count` changing from page to page (punches arriving);
 * `punch_time` with and without seconds. Every row must be journalled once, and the other host
 * must never be asked anything (the password and the token stay with the configured server).
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const s: Server = createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))));
  return (s.address() as AddressInfo).port;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('BioTime server variants: data.token, 401 mid-paging, next on another host, count changing', () => {
  it('journals every row once and never asks the other host', async () => {
    const foreign: string[] = [];
    const otherPort = await listen((req, res) => {
      foreign.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      send(res, 200, { count: 0, next: null, previous: null, data: [] });
    });
    const rows = Array.from({ length: 25 }, (_, i) => ({
      id: i + 1,
      emp_code: String(5000 + i),
      punch_time:
        i % 2 === 0 ? `2026-11-02 09:${String(i).padStart(2, '0')}:15` : `2026-11-02 09:${String(i).padStart(2, '0')}`,
      punch_state: '0',
      verify_type: 1,
      terminal_sn: 'BT-TERM-1',
      terminal_alias: 'Gate',
    }));
    let tokens = 0;
    let reads = 0;
    const port = await listen((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/jwt-api-token-auth/') return send(res, 404, { detail: 'Not found.' });
      if (url.pathname === '/api-token-auth/') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const ok = (JSON.parse(body) as { password?: string }).password === PASSWORD;
          if (!ok) return send(res, 400, { non_field_errors: ['Unable to log in with provided credentials.'] });
          send(res, 200, { code: 0, msg: '', data: { token: `tok-${++tokens}` } });
        });
        return;
      }
      if (url.pathname !== '/iclock/api/transactions/') return send(res, 404, { detail: 'Not found.' });
      reads++;
      // The first token expires after the first page: 401 on the second read.
      if (req.headers.authorization === 'Token tok-1' && reads >= 2)
        return send(res, 401, { detail: 'Invalid token.' });
      const after = Number(url.searchParams.get('id__gt') ?? 0);
      const size = Number(url.searchParams.get('page_size') ?? 10);
      const left = rows.filter((r) => r.id > after);
      const page = left.slice(0, size);
      send(res, 200, {
        count: left.length + reads, // changes from page to page
        next: left.length > size ? `http://127.0.0.1:${otherPort}/iclock/api/transactions/?page=2` : null,
        previous: null,
        msg: '',
        code: 0,
        data: page,
      });
    });
    const j = journalFixture();
    cleanups.push(j.cleanup);
    const poller = new BiotimePoller(
      bioConfig({ url: `http://127.0.0.1:${port}` }, { pageSize: 10, auth: 'auto', timezone: 'UTC' }),
      j.deps,
      undefined,
      passwordEnv(),
    );
    cleanups.push(() => poller.destroy());
    const r = await poller.poll();
    expect(r, r.error).toMatchObject({ ok: true, added: 25 });
    expect(tokens).toBe(2); // renewed once, on the 401
    expect(foreign).toEqual([]);
    expect(journalKeys(j.journal)).toHaveLength(25);
    expect(journalKeys(j.journal)).toContain('5001@2026-11-02 09:01:00@BT-TERM-1');
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    expect(journalKeys(j.journal)).toHaveLength(25);
  });
});
