import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalFaults } from '../../src/sim/terminal/index.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Under every fault switch of the simulator, a poll either succeeds or fails with a clear
 * error; the process never crashes; after the fault clears, the next poll recovers; and
 * the journal holds every punch of the terminal exactly once.
 */
const FAULTS: [string, Partial<TerminalFaults>][] = [
  ['dropped reply to DATA_WRRQ', { dropReplyTo: [1503], dropReplyOnce: true }],
  ['dropped reply to GET_FREE_SIZES', { dropReplyTo: [50], dropReplyOnce: true }],
  ['CMD_DATA split into 1008-byte packets, no pacing', { splitPackets: 1008, pacingMs: 0 }],
  ['CMD_DATA split into 1008-byte packets, paced', { splitPackets: 1008, pacingMs: 1 }],
  ['separate trailing ACK', { separateTrailingAck: true }],
  ['close after EXIT', { closeAfterExit: true }],
  ['slow link', { slowLinkBytesPerSecond: 400_000 }],
  ['disconnect in the middle of a transfer', { disconnectMidTransferAfterBytes: 20_000 }],
  ['ACK_ERROR to DATA_WRRQ', { errorOnDataWrrq: true }],
  ['one session at a time', { maxSessions: 1 }],
];

describe('ZK polling under simulator faults', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  for (const [name, faults] of FAULTS) {
    it(`${name}: recovers or fails clearly, nothing lost or doubled`, async () => {
      const sim = await startTerminalSim({
        generate: { users: 5, punches: 3000, startTime: '2026-01-05 08:00:00', seed: 7 },
        faults,
      });
      const fx = journalFixture();
      cleanups.push(() => sim.stop(), fx.cleanup);
      const cfg = zkConfig(sim.port, { timeoutMs: 700 });
      const first = await pollTerminal(cfg, fx.deps);
      if (!first.ok) expect(first.error).toMatch(/\w{5,}/);
      sim.setFaults({
        dropReplyTo: [],
        splitPackets: null,
        separateTrailingAck: false,
        closeAfterExit: false,
        slowLinkBytesPerSecond: null,
        disconnectMidTransferAfterBytes: null,
        errorOnDataWrrq: false,
      });
      // The terminal notices a closed session a moment after the client left (on a loaded CI box
      // maybe seconds: it holds one session at a time, so the next poll waits for it).
      await waitFor(() => sim.sessions() === 0, 20_000, 'the terminal noticing the session closed');
      const second = await pollTerminal(cfg, fx.deps);
      expect(second.ok, second.error).toBe(true);
      const keys = journalKeys(fx.journal);
      expect(keys).toEqual([...new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`))].sort());
      expect(first.added + second.added).toBe(keys.length);
    });
  }
});
