import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  generateTransactions,
  hostileTransactions,
  SIM_TERMINALS,
  startBiotimeSim,
  transaction,
  TransactionTable,
  type BiotimeSim,
  type SimTransaction,
} from '../../src/sim/biotime/index.js';
import { freePort } from '../../bench/lib/ports.js';
import { everythingWritten, keys, spawnDaemon, statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { bioDaemonStack } from './daemon-stack.js';
import { PASSWORD, ZONE } from './helpers.js';

const expected = (rows: readonly SimTransaction[]) =>
  [...new Set(rows.map((r) => `${r.emp_code}@${r.punch_time}`))].sort();

describe('punchgate run with a BioTime server', () => {
  it('delivers every transaction once through SIGKILLs, a server restart, expiring tokens, a renumbered and a cleared table', async () => {
    // A database that deleted its first 50,000 rows long ago: ids start at 50,001.
    const table = new TransactionTable(
      generateTransactions({ count: 3000, users: 40, startMs: Date.now() - 6 * 3_600_000, timeZone: ZONE, seed: 9 }),
      50_001,
    );
    // The server restarts on its port below: one below the ephemeral range, where no outgoing
    // connection of the box can take it while the server is down.
    let sim: BiotimeSim = await startBiotimeSim({
      password: PASSWORD,
      table,
      port: await freePort(),
      variant: { tokenTtlMs: 1500, maxPageSize: 200 },
    });
    const port = sim.port;
    const s = await bioDaemonStack(sim.url);
    const all: SimTransaction[] = [...table.all()];
    let n = 0;
    const add = () => {
      n++;
      const [t] = sim.add([
        transaction(
          { emp: `L${n}`, atMs: Date.now() - 1000, terminal: SIM_TERMINALS[n % 3]!, state: n % 2, verify: 1 },
          500,
          ZONE,
        ),
      ]);
      all.push({ ...t! });
    };
    let adder = setInterval(add, 20);
    try {
      for (let kill = 0; kill < 5; kill++) {
        const before = s.cursor();
        const d = spawnDaemon(s.configPath);
        if (kill % 2 === 1) await waitFor(() => (s.cursor() ?? 0) > (before ?? 0), 30_000, 'this run to commit');
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 500)));
        d.child.kill('SIGKILL');
        await d.exited;
        if (kill === 2) {
          // The server restarts: its tokens are gone, the port answers nothing for a moment.
          await sim.stop();
          await new Promise((r) => setTimeout(r, 300));
          sim = await startBiotimeSim({
            password: PASSWORD,
            table,
            port,
            variant: { tokenTtlMs: 1500, maxPageSize: 200 },
          });
        }
      }
      expect(s.cursor()).toBeGreaterThan(50_000);
      // The database is restored and renumbered from 1 (every id now below the cursor); new punches follow.
      clearInterval(adder);
      table.renumber();
      adder = setInterval(add, 20);
      const d = spawnDaemon(s.configPath);
      await waitFor(() => s.hrms.attendance().length >= all.length - 50, 60_000, 'most delivered');
      clearInterval(adder);
      const want = expected(all);
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 60_000, 'every transaction delivered').catch(
        (e: Error) => {
          throw new Error(
            `${e.message}: ${keys(s.hrms.attendance()).length} of ${want.length}\n${d.output().slice(-3000)}`,
          );
        },
      );
      await new Promise((r) => setTimeout(r, 1500)); // a few more polls: still nothing doubled
      expect(keys(s.hrms.attendance())).toEqual(want);
      expect(s.hrms.attendance().length).toBe(want.length);
      // The renumbered table is said, in words; only reads reached the server.
      const status = readFileSync(s.tmp.path('status.txt'), 'utf8');
      expect(status).toMatch(/BioTime server hq: .*renumbered/);
      // Then the table is cleared (numbering from 1 again) and new punches come: each delivered once.
      table.clear();
      for (let i = 0; i < 30; i++) add();
      const after = expected(all);
      await waitFor(() => keys(s.hrms.attendance()).length >= after.length, 30_000, 'the punches after the clear');
      await new Promise((r) => setTimeout(r, 1500));
      expect(keys(s.hrms.attendance())).toEqual(after);
      expect(s.hrms.attendance().length).toBe(after.length);
      expect(sim.requests().every((x) => x.method === 'GET' || /token-auth/.test(x.path))).toBe(true);
      // Tokens expired on the way (401) and were renewed.
      expect(sim.requests().some((x) => x.status === 401)).toBe(true);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      // The account's password is nowhere the daemon wrote (its output, the journal, the status file).
      expect(everythingWritten(s.tmp.dir, d, [])).not.toContain(PASSWORD);
    } finally {
      clearInterval(adder);
      await sim.stop();
      await s.stop();
    }
  }, 240_000);

  it('survives endless and huge answers and hostile text: every readable punch once, the refused ones counted, the page escaped', async () => {
    const table = new TransactionTable(
      generateTransactions({ count: 500, users: 10, startMs: Date.now() - 3_600_000, timeZone: ZONE, seed: 3 }),
    );
    table.add(hostileTransactions(Date.now() - 600_000, ZONE));
    const sim = await startBiotimeSim({ password: PASSWORD, table, variant: { fault: 'endless' } });
    const s = await bioDaemonStack(sim.url, { timeoutMs: 300 });
    try {
      const d = spawnDaemon(s.configPath);
      const status = s.tmp.path('status.txt');
      await waitFor(
        () => existsSync(status) && /did not finish|stopped sending/.test(readFileSync(status, 'utf8')),
        20_000,
        'the endless answer named',
      );
      sim.setVariant({ fault: 'huge', hugeBytes: 6 * 1024 * 1024 });
      await waitFor(() => /more than 4096 kB/.test(readFileSync(status, 'utf8')), 20_000, 'the huge answer named');
      expect(s.hrms.attendance()).toHaveLength(0);
      sim.setVariant({ fault: null });
      // Refused at the door: the control-character code and the 5,000-character one; quarantined: the time that is no time.
      const readable = table
        .all()
        .filter((t) => /^[\x21-\x7e]{1,64}$/.test(t.emp_code) && /^\d{4}-/.test(t.punch_time));
      const want = expected(readable);
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 30_000, 'every readable punch delivered');
      expect(keys(s.hrms.attendance())).toEqual(want);
      expect(s.hrms.attendance().length).toBe(want.length);
      await waitFor(() => /refused/.test(readFileSync(status, 'utf8')), 10_000, 'the refusals in the status');
      const page = await (await fetch(await statusUrl(d))).text();
      expect(page).not.toContain('<script>alert(1)');
      expect(page).toContain('CQZ7232160001');
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 120_000);
});
