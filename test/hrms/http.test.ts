import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsHttp, type HttpCall } from '../../src/hrms/http.js';

const open: Array<Server | TcpServer> = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function listen<S extends Server | TcpServer>(s: S): Promise<number> {
  open.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

async function httpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  s.on('connection', (c) => sockets.add(c));
  return { url: `http://127.0.0.1:${await listen(s)}/x`, sockets };
}

/**
 * Long: the servers answer from the test's own process, which a loaded CI box may hold for a
 * second or more (at 1 s and 300 ms a request failed by chance); a test of timeouts sets its own.
 */
const cfg = { timeoutMs: 20_000, connectTimeoutMs: 5000 };
const post = (url: string, over: Partial<HttpCall> = {}): HttpCall => ({
  method: 'POST',
  url,
  headers: {},
  body: 'x',
  ...over,
});
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: { code?: string }) => e.code,
  );

describe('HrmsHttp (undici)', () => {
  it('keeps the connection alive between requests and reads the whole answer', async () => {
    const { url, sockets } = await httpServer((req, res) =>
      res.end(JSON.stringify({ n: req.headers['content-length'] })),
    );
    const http = new HrmsHttp(cfg);
    try {
      for (let i = 0; i < 3; i++) {
        const r = await http.request(post(url, { body: 'y'.repeat(10 + i) }));
        expect(r).toMatchObject({ status: 200, text: JSON.stringify({ n: String(10 + i) }) });
      }
      expect(sockets.size).toBe(1);
    } finally {
      await http.close();
    }
  });

  it('a TLS endpoint that never finishes the handshake is a connect timeout (nothing sent)', async () => {
    const accepted: Socket[] = [];
    const port = await listen(createTcpServer((c) => accepted.push(c))); // accepts, then stays silent
    const http = new HrmsHttp({ timeoutMs: 1000, connectTimeoutMs: 300 });
    const t0 = Date.now();
    expect(await codeOf(http.request(post(`https://127.0.0.1:${port}/x`)))).toBe('CONNECT_TIMEOUT');
    // The code tells the connect timeout from the deadline; the bound only says: not a hang.
    expect(Date.now() - t0).toBeLessThan(5000);
    http.close();
    for (const c of accepted) c.destroy();
  });

  it('a server that accepts the request and never answers hits the deadline', async () => {
    const { url } = await httpServer(() => {});
    const http = new HrmsHttp({ timeoutMs: 200, connectTimeoutMs: 100 });
    const t0 = Date.now();
    await expect(http.request(post(url))).rejects.toMatchObject({
      code: 'DEADLINE',
      message: /timeout: no complete answer within 300 ms/,
    });
    // Not a hang: the message above names the 300 ms deadline; the wall-time bound leaves room for a
    // loaded CI box, which may hold this process a second or more (it was 1 s, failed by chance).
    expect(Date.now() - t0).toBeLessThan(5000);
    http.close();
  });

  it('an answer cut short, an answer too large and an abort are failures with their own codes', async () => {
    const { url } = await httpServer((req, res) => {
      if (req.url === '/x?cut') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('{"Status":');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (req.url === '/x?big') {
        const chunk = Buffer.alloc(1024 * 1024, 0x78);
        let sent = 0;
        const more = () => {
          while (sent < 40 && res.write(chunk)) sent++;
          if (sent < 40) res.once('drain', more);
          else res.end();
        };
        more();
      }
    });
    const http = new HrmsHttp(cfg);
    expect(await codeOf(http.request(post(`${url}?cut`)))).toBe('ECONNRESET');
    expect(await codeOf(http.request(post(`${url}?big`)))).toBe('RESPONSE_TOO_LARGE');
    // A caller may lower the cap for one request (an answer about n punches needs little room).
    expect(await codeOf(http.request(post(`${url}?big`, { maxBytes: 64 * 1024 })))).toBe('RESPONSE_TOO_LARGE');
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    expect(await codeOf(http.request(post(`${url}?silent`, { signal: ctl.signal })))).toBe('ABORTED');
    http.close();
  });
});
