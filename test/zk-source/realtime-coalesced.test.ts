/**
 * Real-time events as TCP delivers them: two EF_ATTLOG packets in one read (a terminal that writes
 * them back to back, Nagle or a proxy joining them), and one packet cut across two reads. A proxy
 * before the simulator reshapes the byte stream from the terminal; every punch must reach the
 * journal at once, not wait for the next poll.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { defaultClientFactory } from '../../src/sources/zk/poll.js';
import { RealtimeLink } from '../../src/sources/zk/realtime.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from '../serial/helpers.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';
import { reshapingProxy } from './reshaping-proxy.js';

const PACKET = 8 + 8 + 32; // TCP prefix, ZK header, 32-byte EF_ATTLOG event

describe('ZK real-time events as TCP delivers them', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('two events in one read and one event across two reads: all three journalled live', async () => {
    const users = [1, 2, 3].map((i) => ({ uid: i, userId: String(7000 + i), name: `U${i}` }));
    const sim = await startTerminalSim({ users, punches: [] });
    const proxy = await reshapingProxy(sim.port);
    const fx = journalFixture();
    cleanups.push(
      () => sim.stop(),
      () => proxy.stop(),
      fx.cleanup,
    );
    const log = captureLogger('info');
    const link = new RealtimeLink(
      zkConfig(proxy.port, { realtime: true }),
      { ...fx.deps, logger: log.logger },
      defaultClientFactory,
      () => 'SIM1',
    );
    cleanups.push(() => link.stop());
    link.start();
    await waitFor(
      () => log.entries.some((e) => e.msg === 'terminal gate-1: real-time events subscribed'),
      10_000,
      'subscribed',
    );
    sim.addPunch({ userId: '7001', logTime: '2026-12-01 08:00:00', verifyType: 1, state: 0 });
    await waitFor(() => fx.journal.queries.list().length === 1, 10_000, 'first live punch');

    proxy.hold = true;
    sim.addPunch({ userId: '7002', logTime: '2026-12-01 08:00:01', verifyType: 1, state: 0 });
    sim.addPunch({ userId: '7003', logTime: '2026-12-01 08:00:02', verifyType: 1, state: 1 });
    sim.addPunch({ userId: '7001', logTime: '2026-12-01 08:00:03', verifyType: 1, state: 1 });
    await waitFor(() => proxy.held() >= 3 * PACKET, 10_000, 'three events from the terminal');
    expect(proxy.held()).toBe(3 * PACKET);
    // Read 1: the first two events whole; reads 2 and 3: the third cut in its header.
    await proxy.release([2 * PACKET + 11]);

    await waitFor(() => fx.journal.queries.list().length === 4, 10_000, 'four live punches');
    expect(journalKeys(fx.journal)).toEqual([
      '7001@2026-12-01 08:00:00',
      '7001@2026-12-01 08:00:03',
      '7002@2026-12-01 08:00:01',
      '7003@2026-12-01 08:00:02',
    ]);
  });
});
