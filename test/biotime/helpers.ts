import { writeFileSync } from 'node:fs';
import type { BiotimeTerminalConfig } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { silentLogger } from '../../src/util/logger.js';
import {
  generateTransactions,
  startBiotimeSim,
  TransactionTable,
  type BioServerVariant,
  type BiotimeSim,
  type SimTransaction,
} from '../../src/sim/biotime/index.js';
import { tempDir } from '../helpers/tmp.js';

export const PASSWORD = 'Right-passw0rd';
export const ZONE = 'Asia/Kolkata';

/** A simulator with `count` transactions punched over the last hours, in the server's zone. */
export async function startSim(
  count: number,
  opts: { variant?: Partial<BioServerVariant>; table?: TransactionTable; port?: number; startMs?: number } = {},
): Promise<BiotimeSim> {
  const table =
    opts.table ??
    new TransactionTable(
      generateTransactions({
        count,
        users: 30,
        startMs: opts.startMs ?? Date.now() - count * 7_000 - 3_600_000,
        timeZone: ZONE,
        seed: 5,
      }),
    );
  return startBiotimeSim({ password: PASSWORD, table, variant: opts.variant, port: opts.port });
}

export function bioConfig(sim: { url: string }, extra: Partial<BiotimeTerminalConfig> = {}): BiotimeTerminalConfig {
  return {
    name: 'hq',
    kind: 'biotime',
    baseUrl: sim.url,
    username: 'admin',
    auth: 'auto',
    pageSize: 100,
    schedule: '* * * * *',
    // The simulator answers from the test's own process, which a loaded CI box may hold for a
    // second or more: a 2 s timeout failed polls by chance (a test of timeouts sets its own).
    timeoutMs: 5000,
    overlapMinutes: 1440,
    lagAlertMinutes: 60,
    enabled: true,
    timezone: ZONE,
    ...extra,
  };
}

/** The environment that gives the server `hq` its password. */
export const passwordEnv = (password = PASSWORD) => ({ PUNCHGATE_TERMINAL_HQ_PASSWORD: password });

/** A real journal on a temp file and the source deps around it. */
export function journalFixture(now: () => number = () => Date.now()) {
  const tmp = tempDir('punchgate-bio-');
  const journal = Journal.open({ path: tmp.path('journal.db'), site: 'test', mode: 'owner', clock: { now } });
  const deps: SourceDeps = sourceDepsFor(journal, silentLogger(), { now });
  const passwordFile = tmp.path('hq.pass');
  writeFileSync(passwordFile, PASSWORD + '\n');
  return { tmp, journal, deps, passwordFile, cleanup: () => (journal.close(), tmp.cleanup()) };
}

/** "code@time@serial" of transactions: what the journal and the HRMS must end up with. */
export function expectedKeys(rows: readonly SimTransaction[]): string[] {
  return [...new Set(rows.map((r) => `${r.emp_code}@${r.punch_time}@${r.terminal_sn}`))].sort();
}

/** Every journalled punch as "code@time@device", sorted. */
export function journalKeys(journal: Journal): string[] {
  return journal.queries
    .list()
    .map((p) => `${p.biometricCode}@${p.logTime}@${p.device}`)
    .sort();
}

/** The transaction list queries the simulator answered, in order. */
export function listQueries(sim: BiotimeSim): URLSearchParams[] {
  return sim
    .requests()
    .filter((r) => r.path.startsWith('/iclock/api/transactions/'))
    .map((r) => new URLSearchParams(r.path.split('?')[1] ?? ''));
}
