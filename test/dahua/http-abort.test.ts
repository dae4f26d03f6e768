import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DahuaHttp } from '../../src/sources/dahua/http.js';

/**
 * A Dahua request asked for after the source was stopped (its signal aborted: the daemon shutting
 * down while a poll goes on) is refused without a request. One made and destroyed before its error
 * listener was on emitted "socket hang up" to nobody: an uncaught exception, and the daemon
 * stopped by SIGTERM exited 70 instead of 0 (seen in the terminal clocks test, 1 run in 4).
 */
describe('a Dahua request after the stop', () => {
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);
  afterEach(() => {
    process.off('uncaughtException', onUncaught);
  });

  it('is an AbortError, and nothing is thrown later', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    process.on('uncaughtException', onUncaught);
    const client = new DahuaHttp({
      host: '127.0.0.1',
      port,
      tls: false,
      username: 'admin',
      password: 'x',
      timeoutMs: 1000,
    });
    const stopped = new AbortController();
    stopped.abort();
    try {
      for (let i = 0; i < 5; i++)
        await expect(client.request('GET', '/cgi-bin/magicBox.cgi', { signal: stopped.signal })).rejects.toMatchObject({
          name: 'AbortError',
        });
      // A request's errors come on a later turn of the event loop: let them come.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(uncaught).toEqual([]);
      // A live signal still gets its answer.
      expect((await client.request('GET', '/x', { signal: new AbortController().signal })).text).toBe('ok');
    } finally {
      client.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
