import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Stopping the push simulator while one of its requests is on the wire (Ctrl-C on `punchgate sim
 * push-terminal` between two polls, which a loaded box makes likely) cuts that request itself: it
 * is not a request the server failed. Counted as one, the summary said "1 failed requests" and
 * `lastError: getrequest: ECONNRESET` for a server that answered everything (test/adms/sim-cli.test.ts
 * failed so under load).
 */
describe('push terminal simulator stopped with a request on the wire', () => {
  it('does not count its own hang-up as a failed request', async () => {
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      const path = req.url ?? '';
      req.resume();
      // The handshake is answered; the first poll is held unanswered, as a slow server would.
      if (path.startsWith('/iclock/cdata')) return void res.end('GET OPTION FROM: SIMSTOP1\nATTLOGStamp=0\nDelay=1\n');
      held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sim = startPushTerminalSim({ server: url, serial: 'SIMSTOP1', punches: 0, delayMs: 200 });
    try {
      await waitFor(() => held.length === 1, 10_000, 'the poll on the wire');
      await sim.stop();
      const s = sim.stats();
      expect(s.handshakes).toBe(1);
      expect(s.failedRequests).toBe(0);
      expect(s.lastError).toBeNull();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
