import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A download that stalls in the middle (the terminal keeps the connection open and sends nothing
 * more), as seen at https://github.com/fananimi/pyzk/issues/7 (get_attendances hangs, then times
 * out) and https://github.com/coding-libs/zkteco-js/pull/10 (a bulk download that stalls at the
 * same byte boundary on a slow link). A minimal reconstruction: a loopback proxy that passes
 * the first bytes of the download and then holds the rest. The poll must end, and the next poll
 * must journal every punch once: none lost, none doubled.
 */
describe('ZK poll: a download that stalls in the middle', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('ends with a clear error; the next poll journals every punch once', async () => {
    const sim = await startTerminalSim({
      generate: { users: 5, punches: 3000, startTime: '2026-01-05 08:00:00', seed: 7 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    let stallAfter: number | null = 30_000;
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((client) => {
      const up = connect(sim.port, '127.0.0.1');
      sockets.add(client).add(up);
      let passed = 0;
      client.on('data', (d) => up.write(d));
      up.on('data', (d) => {
        if (stallAfter !== null && passed + d.length > stallAfter) {
          client.write(d.subarray(0, Math.max(0, stallAfter - passed)));
          passed = stallAfter;
          return; // held: nothing more, the connection stays open
        }
        passed += d.length;
        client.write(d);
      });
      const end = () => (client.destroy(), up.destroy());
      client.on('close', end).on('error', end);
      up.on('close', end).on('error', end);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), proxy.close(() => r()))));
    const cfg = zkConfig((proxy.address() as AddressInfo).port, { timeoutMs: 700 });
    const started = Date.now();
    const first = await pollTerminal(cfg, fx.deps);
    expect(first.ok).toBe(false);
    // Said as a download that stopped part-way, not as "no answer" (check the cable and the address).
    const peer = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    expect(first.error).toBe(`${peer} stopped part-way through an answer and sent nothing more within 0.7 s`);
    expect(fx.deps.ledger.get(cfg.name)?.lastErrorFix).toMatch(
      /^check the network .* raise terminals\[gate-1\]\.timeoutMs/,
    );
    expect(first.added).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    stallAfter = null;
    await waitFor(() => sim.sessions() === 0, 20_000, 'the terminal noticing the session closed');
    const second = await pollTerminal(cfg, fx.deps);
    expect(second.ok, second.error).toBe(true);
    const keys = journalKeys(fx.journal);
    expect(keys).toEqual([...new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`))].sort());
    expect(first.added + second.added).toBe(keys.length);
  });
});
