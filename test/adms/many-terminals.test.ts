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
      adms: { maxConnectionsPerAddress: 1000 },
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
            timeMode: 'sequence',
            faults: { seed: i + 1 },
          }),
        );
      }
      await waitFor(() => sims.every((s) => s.pending() === 0), 60_000, 'every punch of every terminal acknowledged');
      expect(r.journal.counts().pending).toBe(TERMINALS * PUNCHES);
      expect(sims.map((s) => s.stats().failedRequests).reduce((a, b) => a + b)).toBe(0);
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
  }, 90_000);
});
