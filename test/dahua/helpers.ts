import { writeFileSync } from 'node:fs';
import type { DahuaTerminalConfig } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import type { SimRecord } from '../../src/sim/dahua/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { silentLogger } from '../../src/util/logger.js';
import { tempDir } from '../helpers/tmp.js';

export const PASSWORD = 'Right-dahua-1';
/** The simulated devices run at +05:30 (Asia/Kolkata), away from the box's zone. */
export const OFFSET_MIN = 330;
export const ZONE = 'Asia/Kolkata';

/**
 * "code@wall clock" of every record the door accepted (Status 1) in a simulator's log: what the
 * journal and the HRMS must end up with. Written out here from the record's own fields (its
 * CreateTime is the device's wall clock as seconds read as UTC), not with the source's code.
 */
export function expectedPunches(records: readonly SimRecord[]): string[] {
  return records
    .filter((r) => r.Status === 1 && typeof r.CreateTime === 'number' && r.UserID !== '')
    .map((r) => `${r.UserID}@${new Date((r.CreateTime as number) * 1000).toISOString().slice(0, 19).replace('T', ' ')}`)
    .sort();
}

export function dahuaConfig(sim: { port: number }, extra: Partial<DahuaTerminalConfig> = {}): DahuaTerminalConfig {
  return {
    name: 'front-door',
    kind: 'dahua',
    host: '127.0.0.1',
    port: sim.port,
    tls: false,
    username: 'admin',
    schedule: '* * * * *',
    realtime: false,
    // The simulator answers from the test's own process, which a loaded CI box may hold for a
    // second or more: a 2 s timeout failed polls by chance (a test of timeouts sets its own).
    timeoutMs: 5000,
    pageSize: 100,
    recordClock: 'local',
    userApi: 'auto',
    skewThresholdSeconds: 60,
    enabled: true,
    timezone: ZONE,
    ...extra,
  };
}

/** A real journal on a temp file, the source deps around it, and a password file. */
/** A journal and the source deps around it; `now` is the box's clock (default the real one). */
export function journalFixture(now: () => number = () => Date.now()) {
  const tmp = tempDir('punchgate-dahua-');
  const journal = Journal.open({ path: tmp.path('journal.db'), site: 'test', mode: 'owner', clock: { now } });
  const deps: SourceDeps = sourceDepsFor(journal, silentLogger(), { now });
  const passwordFile = tmp.path('front-door.pass');
  writeFileSync(passwordFile, PASSWORD + '\n');
  return { tmp, journal, deps, passwordFile, cleanup: () => (journal.close(), tmp.cleanup()) };
}

export function journalKeys(journal: Journal): string[] {
  return journal.queries
    .list()
    .map((p) => `${p.biometricCode}@${p.logTime}`)
    .sort();
}
