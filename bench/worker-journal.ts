/**
 * A worker thread that does a drain's journal work on its own connection (bench/drain-designs.ts):
 * each message settles the last batch as delivered and claims the next in one transaction, as the
 * deliverer does, and answers with the claimed punches in the form the HRMS is sent. A probe of a
 * design, not what punchgate ships: the deliverer does this work on the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Journal } from '../src/journal/index.js';
import { BENCH_SITE } from './lib/setup.js';

export interface JournalAsk {
  /** Ids of the last batch sent, to settle as delivered. */
  settle?: number[];
  /** How many to claim next (0: none). */
  claim: number;
}

export interface JournalAnswer {
  ids: number[];
  punches: { biometriccode: string; logDate: string; devicelogId: string }[];
  /** Milliseconds this answer's journal work took on the worker. */
  busyMs: number;
}

const port = parentPort;
if (!port) throw new Error('bench/worker-journal.js runs as a worker thread');
const journal = Journal.open({ path: (workerData as { path: string }).path, site: BENCH_SITE, mode: 'owner' });

port.on('message', (m: JournalAsk | 'close') => {
  if (m === 'close') {
    journal.close();
    port.close();
    return;
  }
  const t0 = performance.now();
  const rows = journal.together(() => {
    if (m.settle) journal.settle(m.settle.map((id) => ({ id, kind: 'delivered' as const })));
    return m.claim > 0 ? journal.claim(m.claim) : [];
  });
  const answer: JournalAnswer = {
    ids: rows.map((r) => r.id),
    punches: rows.map((r) => ({ biometriccode: r.biometricCode, logDate: r.logTime, devicelogId: r.devicelogId })),
    busyMs: performance.now() - t0,
  };
  port.postMessage(answer);
});
