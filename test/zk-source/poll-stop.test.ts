import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { waitFor } from '../helpers/wait.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * A poll the daemon cuts short because it is stopping is not the terminal's failure: no "no answer
 * from ... check the cable" on its record (the demo printed it at every Ctrl-C that met a poll),
 * and the next poll reads everything.
 */
describe('a ZK poll stopped by shutdown', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('records no failure and no offline terminal; the next poll journals every punch once', async () => {
    const sim = await startTerminalSim({
      generate: { users: 5, punches: 3000, startTime: '2026-01-05 08:00:00', seed: 7 },
      // Slow enough that the download is still going when the stop comes.
      faults: { slowLinkBytesPerSecond: 20_000 },
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const cfg = zkConfig(sim.port, { timeoutMs: 5000 });
    const stop = new AbortController();
    const polling = pollTerminal(cfg, fx.deps, undefined, stop.signal);
    await waitFor(() => sim.sessions() > 0, 10_000, 'the poll connected');
    stop.abort();
    const stopped = await polling;
    expect(stopped.ok).toBe(false);
    expect(stopped.error).toBe('stopped while polling');
    const record = fx.deps.ledger.get(cfg.name);
    expect(record?.lastError ?? null).toBeNull();
    expect(record?.offlineSince ?? null).toBeNull();

    sim.setFaults({ slowLinkBytesPerSecond: null });
    // The terminal notices the closed session a moment later (a loaded CI box: maybe seconds); it
    // holds one session at a time, so the next poll must wait for it (a 2 s loop failed by chance).
    await waitFor(() => sim.sessions() === 0, 20_000, 'the terminal noticing the session closed');
    const next = await pollTerminal(cfg, fx.deps);
    expect(next.ok, next.error).toBe(true);
    expect(journalKeys(fx.journal)).toEqual([...new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`))].sort());
  });
});
