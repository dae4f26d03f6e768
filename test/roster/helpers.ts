/**
 * Real terminal simulators, a real journal file and a parsed config for the user commands,
 * run in-process (the CLI child-process test is separate); all closed after every test.
 */
import { writeFileSync } from 'node:fs';
import { afterEach } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/journal.js';
import type { UserCommandDeps } from '../../src/roster/command-deps.js';
import { runSyncUsers, type SyncCommandOptions } from '../../src/roster/sync-command.js';
import { startTerminalSim, type TerminalSim, type TerminalSimOptions } from '../../src/sim/terminal/index.js';
import { tempDir } from '../helpers/tmp.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

export function useUserSync() {
  const sims: TerminalSim[] = [];
  let tmp: ReturnType<typeof tempDir> | null = null;
  let journal: Journal | null = null;
  afterEach(async () => {
    journal?.close();
    journal = null;
    await Promise.all(sims.splice(0).map((s) => s.stop()));
    tmp?.cleanup();
    tmp = null;
    env.now = Date.now;
  });

  const env = {
    now: Date.now,
    config: null as unknown as Config,
    get journal(): Journal {
      return journal!;
    },
    path: (name: string) => tmp!.path(name),

    /** Starts one simulator per entry and a config naming them (plus `extra` terminals). */
    async start<K extends string>(
      terminals: Record<K, TerminalSimOptions & { transport?: 'tcp' | 'udp'; encoding?: string }>,
      extra: Record<string, unknown>[] = [],
      more: Record<string, unknown> = {},
    ): Promise<Record<K, TerminalSim>> {
      tmp = tempDir('punchgate-roster-');
      const out = {} as Record<K, TerminalSim>;
      const list: Record<string, unknown>[] = [];
      for (const [name, opts] of Object.entries(terminals) as [
        K,
        TerminalSimOptions & { transport?: 'tcp' | 'udp'; encoding?: string },
      ][]) {
        const sim = await startTerminalSim(opts);
        sims.push(sim);
        out[name] = sim;
        list.push({
          name,
          kind: 'zk',
          host: '127.0.0.1',
          port: sim.port,
          transport: opts.transport ?? 'tcp',
          // The simulators answer from the test's own process, which a loaded CI box may hold for a
          // second or more: a 2 s timeout failed a sync by chance.
          timeoutMs: 5000,
          ...(opts.encoding !== undefined ? { encoding: opts.encoding } : {}),
        });
      }
      env.config = parseConfig(
        {
          site: 'plant-a',
          journal: { path: 'journal.db' },
          hrms: { baseUrl: 'http://127.0.0.1:9' },
          terminals: [...list, ...extra],
          ...more,
        },
        tmp.dir,
      );
      // Only `punchgate run` creates a journal: make it as the daemon would, then open it as a command does.
      Journal.open({ path: env.config.journal.path, site: 'plant-a', mode: 'owner' }).close();
      journal = Journal.open({ path: env.config.journal.path, site: 'plant-a' });
      return out;
    },

    deps(over: Partial<UserCommandDeps> = {}): UserCommandDeps & { output: Run } {
      const output: Run = { code: -1, out: '', err: '' };
      return {
        config: env.config,
        journal: journal!,
        now: () => env.now(),
        out: { write: (s: string) => (output.out += s) },
        err: { write: (s: string) => (output.err += s) },
        scrub: (s) => s,
        output,
        ...over,
      };
    },

    writeRoster(lines: string[], name = 'roster.csv'): string {
      const file = tmp!.path(name);
      writeFileSync(file, lines.join('\n') + '\n');
      return file;
    },

    async sync(opts: SyncCommandOptions, over: Partial<UserCommandDeps> = {}): Promise<Run> {
      const d = env.deps(over);
      d.output.code = await runSyncUsers(opts, d);
      return d.output;
    },
  };
  return env;
}

/** The users of a simulator as `code name card privilege`, sorted by uid. */
export function usersOf(sim: TerminalSim): string[] {
  return sim
    .users()
    .sort((a, b) => a.uid - b.uid)
    .map((u) => `${u.uid} ${u.userId} ${u.name} ${u.card ?? 0} ${u.privilege ?? 0}`);
}
