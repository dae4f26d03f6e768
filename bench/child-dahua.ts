/**
 * A Dahua terminal simulator (startDahuaSim) in its own process, so that its answers are not
 * written on the event loop of the client under test.
 */
import { generateRecords, startDahuaSim } from '../src/sim/dahua/index.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';

export interface DahuaChildArgs {
  records: number;
  password: string;
}

export interface DahuaChildReady {
  port: number;
  records: number;
  /** Records the door accepted (punches). */
  accepted: number;
}

const { records, password } = childArgs<DahuaChildArgs>();
try {
  const now = Math.floor(Date.now() / 1000);
  const sim = await startDahuaSim({
    password,
    utcOffsetMinutes: 0,
    records: generateRecords(records, now - 3600, 1, 300),
  });
  serve({ count: () => sim.records().length }, () => sim.stop());
  announceReady({
    port: sim.port,
    records: sim.records().length,
    accepted: sim.records().filter((r) => r.Status === 1).length,
  } satisfies DahuaChildReady);
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
