/**
 * A Hikvision terminal simulator (startHikvisionSim) in its own process, so that its JSON
 * encoding and search do not share the event loop of the client under test.
 */
import { generateEvents, startHikvisionSim } from '../src/sim/hikvision/index.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';

export interface HikvisionChildArgs {
  passes: number;
  password: string;
}

export interface HikvisionChildReady {
  url: string;
  events: number;
}

const { passes, password } = childArgs<HikvisionChildArgs>();
try {
  const sim = await startHikvisionSim({
    password,
    utcOffset: '+00:00',
    // Requests are counted by the clients; a log of 100,000 request records is not what is measured.
    logRequests: false,
    events: generateEvents({
      passes,
      users: 300,
      startMs: Date.now() - passes * 1000 - 3_600_000,
      gapSeconds: 1,
      utcOffset: '+00:00',
      noise: false,
    }),
  });
  serve({ count: () => sim.events().length }, () => sim.stop());
  announceReady({ url: sim.url, events: sim.events().length } satisfies HikvisionChildReady);
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
