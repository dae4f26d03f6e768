import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, zkConfig } from './helpers.js';

describe('ZK polling: volume', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('downloads 100,000 punches intact over TCP', async () => {
    const sim = await startTerminalSim({
      generate: { users: 300, punches: 100_000, startTime: '2024-01-01 06:00:00', seed: 3 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(sim.port, { transport: 'tcp', timeoutMs: 10_000 }), fx.deps);
    expect(r.ok, r.error).toBe(true);
    expect(r.records).toBe(100_000);
    const distinct = new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`)).size;
    expect(fx.journal.counts().pending).toBe(distinct);
  }, 60_000);

  it('downloads 10,000 punches intact over UDP', async () => {
    const sim = await startTerminalSim({
      generate: { users: 50, punches: 10_000, startTime: '2024-01-01 06:00:00', seed: 4 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(sim.port, { transport: 'udp', timeoutMs: 5000 }), fx.deps);
    expect(r.ok, r.error).toBe(true);
    expect(r.records).toBe(10_000);
    const distinct = new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`)).size;
    expect(fx.journal.counts().pending).toBe(distinct);
  }, 60_000);
});
