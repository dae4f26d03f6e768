/**
 * The simulator's `reorderDatagrams` fault (`punchgate sim terminal --reorder-datagrams`): over UDP
 * each chunk's datagrams come out of order (CMD_DATA #0 and #1 swapped, the trailing ACK_OK before
 * the last CMD_DATA), as coding-libs/zkteco-php#9 reports of SC800 terminals on a slow network.
 * A poll reads the whole log, every punch as on the terminal, each chunk asked once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

describe('ZK over UDP: a simulator whose datagrams arrive out of order', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('journals every punch of a 1,500-punch log as it is on the terminal', async () => {
    const sim = await startTerminalSim({
      generate: { users: 30, punches: 1500, startTime: '2026-11-02 07:00:00', seed: 9 },
      chunkSize: 16_384, // 4 + 1500 x 40 bytes: four chunks of 17 datagrams or fewer
      faults: { reorderDatagrams: true },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);

    const r = await pollTerminal(zkConfig(sim.port, { transport: 'udp' }), fx.deps);
    expect(r).toMatchObject({ ok: true, records: 1500, added: 1500 });
    expect(journalKeys(fx.journal)).toEqual(
      sim
        .punches()
        .map((p) => `${p.userId}@${p.logTime}`)
        .sort(),
    );
  });
});
