/**
 * The HRMS simulator in its own process, so that its CPU and memory (it records every punch
 * it receives) are not billed to the client under test. Started by bench/lib/child.ts.
 */
import { startHrmsSim, type ReceivedPunch } from '../src/sim/hrms/index.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';
import { BENCH_TOKEN } from './lib/setup.js';

export interface HrmsChildReady {
  url: string;
}

export interface HrmsStats {
  requests: number;
  received: number;
  added: number;
}

const args = childArgs<{ latencyMs?: number }>();

try {
  const sim = await startHrmsSim({ tokens: [BENCH_TOKEN], roster: 'off', faults: { latencyMs: args.latencyMs ?? 0 } });
  serve(
    {
      reset: () => sim.reset(),
      stats: (): HrmsStats => {
        const received = sim.received();
        return {
          requests: sim.requests(),
          received: received.length,
          added: received.filter((p) => p.outcome === 'added').length,
        };
      },
      /** Received punches from position `from` on (for latency: each carries the time it was processed). */
      receivedFrom: (m): ReceivedPunch[] => sim.received().slice(Number(m.from ?? 0)),
    },
    () => sim.stop(),
  );
  announceReady({ url: sim.url } satisfies HrmsChildReady);
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
