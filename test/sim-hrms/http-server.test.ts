/**
 * The server part the HRMS-side simulators share (src/sim/http-server.ts): every request logged
 * with its path only, a bug answered by the simulator's own 500 and logged, not a crash, and a
 * stop that may be called twice.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { createLoggedServer, listenHttp, listenPort, openSockets } from '../../src/sim/http-server.js';
import { waitFor } from '../helpers/wait.js';

describe('HRMS-side simulator server', () => {
  it('logs each request by path, answers a bug with 500 and keeps serving', async () => {
    const lines: string[] = [];
    const server = createLoggedServer(
      (req, res) => {
        if (req.url?.startsWith('/bug')) return Promise.reject(new Error('simulator bug'));
        res.end('ok');
        return Promise.resolve('200');
      },
      (line) => lines.push(line),
      (res) => res.writeHead(500).end('bug answered'),
    );
    const { port, urlHost, stop } = await listenHttp(server, '127.0.0.1', 0);
    expect(urlHost).toBe('127.0.0.1');
    const url = `http://${urlHost}:${port}`;
    const bug = await fetch(`${url}/bug?token=secret`);
    expect(bug.status).toBe(500);
    expect(await bug.text()).toBe('bug answered');
    const ok = await fetch(`${url}/api/x?token=secret`);
    expect(await ok.text()).toBe('ok');
    expect(lines[0]).toBe('GET /bug -> 500 simulator bug');
    expect(lines[1]).toMatch(/^GET \/api\/x -> 200 \(\d+ ms\)$/);
    expect(lines.join('\n')).not.toContain('secret');
    const first = stop();
    expect(stop()).toBe(first);
    await first;
    expect(server.listening).toBe(false);
  });

  it('a port taken rejects', async () => {
    const one = createLoggedServer(
      () => Promise.resolve('200'),
      () => {},
      () => {},
    );
    const taken = await listenHttp(one, '127.0.0.1', 0);
    const two = createLoggedServer(
      () => Promise.resolve('200'),
      () => {},
      () => {},
    );
    await expect(listenHttp(two, '127.0.0.1', taken.port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await taken.stop();
  });

  it('the device simulators: listenPort gives the port or rejects a taken one; openSockets follows the connections', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const sockets = openSockets(server);
    const port = await listenPort(server, '127.0.0.1', 0);
    const other = createServer();
    await expect(listenPort(other, '127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const client = connect(port, '127.0.0.1');
    await waitFor(() => sockets.size === 1);
    client.destroy();
    await waitFor(() => sockets.size === 0);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
