/**
 * Every reply of a poll cut into one-byte TCP segments (a serial number, the terminal's clock,
 * the attendance log): each is read whole, the serial is the terminal's, every punch journalled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';
import { reshapingProxy } from './reshaping-proxy.js';

describe('ZK over TCP: replies cut into one-byte segments', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('the serial number and every punch are read whole', async () => {
    const sim = await startTerminalSim({
      serialNumber: 'CUT-SERIAL-000042',
      generate: { users: 4, punches: 20, startTime: '2026-01-05 08:00:00', seed: 5 },
    });
    const proxy = await reshapingProxy(sim.port);
    proxy.byteByByte = true;
    const fx = journalFixture();
    cleanups.push(
      () => sim.stop(),
      () => proxy.stop(),
      fx.cleanup,
    );

    const r = await pollTerminal(zkConfig(proxy.port), fx.deps);
    expect(r).toMatchObject({ ok: true, records: 20, added: 20 });
    expect(fx.deps.ledger.get('gate-1')?.serial).toBe('CUT-SERIAL-000042');
    expect(new Set(fx.journal.queries.list().map((p) => p.device))).toEqual(new Set(['CUT-SERIAL-000042']));
    expect(journalKeys(fx.journal)).toEqual(
      sim
        .punches()
        .map((p) => `${p.userId}@${p.logTime}`)
        .sort(),
    );
  });
});
