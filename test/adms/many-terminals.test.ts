import { describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, terminal } from './harness.js';

const TERMINALS = 200;
const PUNCHES = 50;

describe('ADMS receiver: 200 terminals at once', () => {
  it('takes every punch of 200 terminals pushing together, each on its own connection', async () => {
    const serials = Array.from({ length: TERMINALS }, (_, i) => `MANY${String(i).padStart(6, '0')}`);
    // All of them come from 127.0.0.1 here: lift the per-address bound (on a LAN each terminal has its own address).
    const r = await startReceiver({
      terminals: serials.map((sn, i) => terminal(`t${i}`, sn)),
      // Delay: the 60 s the terminals below poll at (delayMs), so that the receiver keeps an idle
      // connection open 2 x 60 + 5 s: the keep-alive check below holds however slow the box is,
      // instead of only while the whole test takes less than the default's 25 s.
      adms: { maxConnectionsPerAddress: 1000, delay: 60 },
    });
    const sims: PushTerminalSim[] = [];
    try {
      for (const [i, sn] of serials.entries()) {
        sims.push(
          startPushTerminalSim({
            server: r.url,
            serial: sn,
            users: 5,
            punches: PUNCHES,
            batchSize: 25,
            delayMs: 60_000,
            errorDelayMs: 200,
            // Every request waits for its answer: on a loaded box 200 terminals and the receiver share
            // this one process, and a first answer may take longer than a terminal's usual 10 s. A
            // timeout here would be the test's clock, not the receiver's answer; what is proved is
            // that no request is refused or answered with an error.
            requestTimeoutMs: 60_000,
            timeMode: 'sequence',
            faults: { seed: i + 1 },
          }),
        );
      }
      await waitFor(() => sims.every((s) => s.pending() === 0), 80_000, 'every punch of every terminal acknowledged');
      expect(r.journal.counts().pending).toBe(TERMINALS * PUNCHES);
      const failed = sims.filter((s) => s.stats().failedRequests > 0);
      expect(failed.map((s) => `${s.serial}: ${s.stats().lastError}`)).toEqual([]);
      expect(sims.every((s) => s.stats().resentAfterOk === 0)).toBe(true);
      // Keep-alive: each terminal still holds its connection.
      expect(r.receiver.openConnections()).toBeGreaterThanOrEqual(TERMINALS);
      await waitFor(
        () => r.store.pushTerminals().filter((t) => t.lastContactAt !== null).length === TERMINALS,
        20_000,
        'contacts',
      );
      expect(r.store.users('t0', serials[0]!)).toHaveLength(5);
    } finally {
      await Promise.all(sims.map((s) => s.stop()));
      await r.stop();
    }
  }, 120_000);
});
