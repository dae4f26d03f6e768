import { describe, expect, it } from 'vitest';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, terminal } from './harness.js';

describe('push terminal faults against the receiver', () => {
  it('malformed lines, duplicate uploads, unanswered batches and bodies cut mid-way: every punch stored once', async () => {
    const r = await startReceiver({ terminals: [terminal('lobby', 'FAULTY01')] });
    const sim = startPushTerminalSim({
      server: r.url,
      serial: 'FAULTY01',
      punches: 2000,
      batchSize: 40,
      delayMs: 500,
      errorDelayMs: 10,
      timeMode: 'sequence',
      faults: { malformedRate: 0.3, duplicateRate: 0.3, unansweredRate: 0.2, dropMidBodyRate: 0.2, seed: 3 },
    });
    try {
      await waitFor(() => sim.backlog() === 0, 30_000, 'everything uploaded');
      const s = sim.stats();
      expect(s.malformedSent).toBeGreaterThan(5);
      expect(s.intentionalResends).toBeGreaterThan(100);
      expect(s.failedRequests).toBeGreaterThan(5);
      expect(s.resentAfterOk).toBe(0);
      // Exactly the terminal's records, once each; the malformed lines counted, not stored.
      const stored = r.journal.queries.list().map((p) => `${p.biometricCode}@${p.logTime}`);
      expect(stored.sort()).toEqual(
        sim
          .records()
          .map((x) => `${x.pin}@${x.logTime}`)
          .sort(),
      );
      await waitFor(() => (r.store.pushTerminal('lobby')?.malformed ?? 0) > 0, 20_000, 'malformed counted');
    } finally {
      await sim.stop();
      await r.stop();
    }
  });
});
