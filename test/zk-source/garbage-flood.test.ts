import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * Something at a terminal's address that answers a ZK request with an endless stream of bytes that
 * are no ZK packet (64 kB bursts): found by an adversarial trial, the poll said "no answer within
 * 1.5 s: check the cable/power", the wrong fix for a peer that plainly answers. The bytes are
 * skipped without being kept (no memory grows), and the trouble is said as it is.
 */
describe('ZK polling: a peer that floods bytes that are no ZK packet', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is said as a peer that answers, but not as a ZK terminal, within the timeout', async () => {
    const burst = Buffer.alloc(65536, 0x5a);
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
      const pump = () => {
        while (!s.destroyed && s.write(burst));
      };
      s.on('drain', pump);
      s.once('data', pump);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    });
    const fx = journalFixture();
    cleanups.push(fx.cleanup);
    const cfg = zkConfig((server.address() as AddressInfo).port, { timeoutMs: 500 });

    const started = Date.now();
    const r = await pollTerminal(cfg, fx.deps);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/not as a ZK terminal/);
    expect(fx.deps.ledger.get('gate-1')?.lastErrorFix).toMatch(/point at the terminal/);
  });
});
