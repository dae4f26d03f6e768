/**
 * The server part the HRMS-side simulators share (src/sim/http-server.ts): every request logged
 * with its path only, a bug answered by the simulator's own 500 and logged, not a crash, and a
 * stop that may be called twice.
 */
import { describe, expect, it } from 'vitest';
import { createLoggedServer, listenHttp } from '../../src/sim/http-server.js';

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
});
