import type { ZkTerminalConfig } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { silentLogger } from '../../src/util/logger.js';
import { tempDir } from '../helpers/tmp.js';

export function zkConfig(port: number, extra: Partial<ZkTerminalConfig> = {}): ZkTerminalConfig {
  return {
    name: 'gate-1',
    kind: 'zk',
    host: '127.0.0.1',
    port,
    transport: 'tcp',
    commKey: 0,
    schedule: '* * * * *',
    realtime: false,
    // The simulator answers from this same process, which a loaded CI box may hold for a second
    // or more (a 1 s timeout then failed a poll by chance); a test of timeouts sets its own.
    timeoutMs: 5000,
    pollDeadlineMs: 60_000,
    pollDeadlinePerRecordMs: 5,
    syncClock: false,
    skewThresholdSeconds: 60,
    stateByte: 8,
    enabled: true,
    timezone: 'UTC',
    ...extra,
  };
}

/** A real journal on a temp file plus the source deps around it. */
export function journalFixture(now: () => number = () => Date.now()): {
  journal: Journal;
  deps: SourceDeps;
  cleanup: () => void;
  woken: number[];
} {
  const tmp = tempDir();
  const journal = Journal.open({
    path: tmp.path('journal.db'),
    site: 'test',
    mode: 'owner',
    clock: { now },
    futureToleranceMinutes: 60 * 24 * 365 * 50,
  });
  const woken: number[] = [];
  const deps = sourceDepsFor(journal, silentLogger(), { now }, (n) => woken.push(n));
  return { journal, deps, woken, cleanup: () => (journal.close(), tmp.cleanup()) };
}

/** Every journalled punch as "code@time", sorted. */
export function journalKeys(journal: Journal): string[] {
  return journal.queries
    .list()
    .map((p) => `${p.biometricCode}@${p.logTime}`)
    .sort();
}
