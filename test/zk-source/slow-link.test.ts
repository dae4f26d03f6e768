import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * A link slower than one piece of the log per timeoutMs (a VPN to a branch, a radio bridge): each
 * piece (up to 64 kB in one packet) arrives in small TCP segments over more than timeoutMs, its
 * bytes flowing the whole time. The inactivity limit counted only whole packets, so every poll
 * failed with "no answer, check the cable" and the log was never read. It counts bytes now; a
 * link that stops mid-packet is still cut at timeoutMs (stall.test.ts), and the whole poll by
 * its deadline (trickle.test.ts).
 */
describe('ZK poll over a slow link', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('reads a log whose one packet takes longer than timeoutMs to arrive, every punch once', async () => {
    // 1000 records of 40 bytes in one 40 kB packet at 25 kB/s: 1.6 s, the timeout 0.8 s.
    const sim = await startTerminalSim({
      generate: { users: 5, punches: 1000, startTime: '2026-01-05 08:00:00', seed: 7 },
      faults: { slowLinkBytesPerSecond: 25_000 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(sim.port, { timeoutMs: 800 }), fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, records: 1000, added: 1000 });
    expect(journalKeys(fx.journal)).toEqual(
      sim
        .punches()
        .map((p) => `${p.userId}@${p.logTime}`)
        .sort(),
    );
  });
});
