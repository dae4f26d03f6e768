import { describe, expect, it } from 'vitest';
import {
  generateTransactions,
  SIM_TERMINALS,
  startBiotimeSim,
  transaction,
  TransactionTable,
  type SimTransaction,
} from '../../src/sim/biotime/index.js';
import { keys, spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { bioDaemonStack } from './daemon-stack.js';
import { PASSWORD, ZONE } from './helpers.js';

const expected = (rows: readonly SimTransaction[]) =>
  [...new Set(rows.map((r) => `${r.emp_code}@${r.punch_time}`))].sort();

describe('punchgate run and a BioTime table renumbered while it was stopped', () => {
  it('delivers every punch when the new ids passed the read position before it started again', async () => {
    const table = new TransactionTable(
      generateTransactions({ count: 1000, users: 40, startMs: Date.now() - 6 * 3_600_000, timeZone: ZONE, seed: 11 }),
    );
    const sim = await startBiotimeSim({ password: PASSWORD, table });
    const stack = await bioDaemonStack(sim.url);
    const { hrms, configPath } = stack;
    const all: SimTransaction[] = [...table.all()];
    try {
      let d = spawnDaemon(configPath);
      await waitFor(() => hrms.attendance().length >= 1000, 60_000, 'the first 1,000 delivered');
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      // While punchgate is stopped, the database is restored from an older backup (its first 300
      // transactions, numbered from 1) and 900 punches come: ids 301..1200 pass the 1,000 read.
      const backup = all.slice(0, 300);
      table.clear();
      table.add(backup);
      const since = sim.add(
        Array.from({ length: 900 }, (_, i) =>
          transaction(
            {
              emp: `R${i + 1}`,
              atMs: Date.now() - 20 * 60_000 + i * 1000,
              terminal: SIM_TERMINALS[i % 3]!,
              state: i % 2,
              verify: 1,
            },
            500,
            ZONE,
          ),
        ),
      );
      all.push(...since);
      expect(table.all().at(-1)!.id).toBe(1200);
      d = spawnDaemon(configPath);
      const want = expected(all);
      await waitFor(() => keys(hrms.attendance()).length >= want.length, 60_000, 'every punch delivered').catch(
        (e: Error) => {
          throw new Error(`${e.message}: ${keys(hrms.attendance()).length} of ${want.length}`);
        },
      );
      expect(keys(hrms.attendance())).toEqual(want);
      expect(hrms.attendance().length).toBe(want.length); // nothing doubled
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await stack.stop();
    }
  }, 180_000);
});
