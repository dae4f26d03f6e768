/**
 * A BioTime server simulator (startBiotimeSim) in its own process, so that its JSON encoding
 * does not share the event loop of the client under test.
 */
import { generateTransactions, startBiotimeSim, TransactionTable } from '../src/sim/biotime/index.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';

export interface BiotimeChildArgs {
  transactions: number;
  password: string;
}

export interface BiotimeChildReady {
  url: string;
  transactions: number;
}

const { transactions, password } = childArgs<BiotimeChildArgs>();
try {
  const table = new TransactionTable(
    generateTransactions({
      count: transactions,
      users: 300,
      startMs: Date.now() - transactions * 1000 - 3_600_000,
      stepMs: 1000,
      timeZone: 'UTC',
    }),
  );
  const sim = await startBiotimeSim({ password, table });
  serve({ count: () => table.size }, () => sim.stop());
  announceReady({ url: sim.url, transactions: table.size } satisfies BiotimeChildReady);
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
