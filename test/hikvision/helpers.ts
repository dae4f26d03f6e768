import { writeFileSync } from 'node:fs';
import type { HikvisionTerminalConfig } from '../../src/config/terminals.js';
import { DEFAULT_HIKVISION_MINORS } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import type { HikClientFactory } from '../../src/sources/hikvision/index.js';
import { HikvisionClient } from '../../src/sources/hikvision/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { silentLogger } from '../../src/util/logger.js';
import {
  generateEvents,
  startHikvisionSim,
  type HikvisionSim,
  type HikvisionSimOptions,
  type SimEvent,
} from '../../src/sim/hikvision/index.js';
import { tempDir } from '../helpers/tmp.js';

export const PASSWORD = 'Right-passw0rd';

/**
 * The authentication passes, written out here rather than taken from the source, so that the
 * tests check the source's list against the notes (hikvision-isapi.md) independently.
 */
export const PASS_MINORS = new Set([
  1, 38, 75, 69, 77, 101, 2, 40, 43, 46, 72, 16, 54, 57, 60, 63, 66, 105, 153, 159, 179, 181,
]);

/** "code@wall clock" of every pass in a simulator's log: what the HRMS must end up with. */
export function expectedPunches(events: readonly SimEvent[]): string[] {
  return events
    .filter((e) => e.major === 5 && PASS_MINORS.has(e.minor))
    .map((e) => `${e.employeeNoString}@${e.time.slice(0, 10)} ${e.time.slice(11, 19)}`)
    .sort();
}

/** A simulator with `passes` authentication passes and their door and failure noise, in the past. */
export async function startSim(
  passes: number,
  opts: HikvisionSimOptions & { startMs?: number; seed?: number } = {},
): Promise<HikvisionSim> {
  const utcOffset = opts.utcOffset ?? '+05:30';
  return startHikvisionSim({
    password: PASSWORD,
    utcOffset,
    ...opts,
    events: generateEvents({
      passes,
      startMs: opts.startMs ?? Date.now() - passes * 7_000 - 3_600_000,
      utcOffset,
      noise: true,
      seed: opts.seed ?? 7,
    }),
  });
}

export function hikConfig(sim: { url: string }, extra: Partial<HikvisionTerminalConfig> = {}): HikvisionTerminalConfig {
  return {
    name: 'reception',
    kind: 'hikvision',
    url: sim.url,
    username: 'admin',
    schedule: '* * * * *',
    minors: [...DEFAULT_HIKVISION_MINORS],
    realtime: false,
    // The simulator answers from the test's own process, which a loaded CI box may hold for a
    // second or more: a 2 s timeout failed polls by chance (a test of timeouts sets its own).
    timeoutMs: 5000,
    syncClock: false,
    skewThresholdSeconds: 60,
    overlapMinutes: 10,
    enabled: true,
    timezone: 'Asia/Kolkata',
    ...extra,
  };
}

/** The environment that gives the terminal `reception` its password. */
export const passwordEnv = (password = PASSWORD) => ({ PUNCHGATE_TERMINAL_RECEPTION_PASSWORD: password });

export function openClient(
  sim: { url: string },
  password = PASSWORD,
  extra: Partial<Parameters<typeof HikvisionClient.open>[0]> = {},
) {
  return HikvisionClient.open({ url: sim.url, username: 'admin', password, timeoutMs: 5000, ...extra });
}

/** A client factory that counts the clients it made. */
export function countingFactory(): { factory: HikClientFactory; made: () => number } {
  let n = 0;
  return {
    factory: (cfg, password) => {
      n++;
      return HikvisionClient.open({ url: cfg.url, username: cfg.username, password, timeoutMs: cfg.timeoutMs });
    },
    made: () => n,
  };
}

/** A real journal on a temp file, the source deps around it, and a password file. */
export function journalFixture(now: () => number = () => Date.now()) {
  const tmp = tempDir('punchgate-hik-');
  const journal = Journal.open({ path: tmp.path('journal.db'), site: 'test', mode: 'owner', clock: { now } });
  const deps: SourceDeps = sourceDepsFor(journal, silentLogger(), { now });
  const passwordFile = tmp.path('reception.pass');
  writeFileSync(passwordFile, PASSWORD + '\n');
  return { tmp, journal, deps, passwordFile, cleanup: () => (journal.close(), tmp.cleanup()) };
}

/** Every journalled punch as "code@time", sorted. */
export function journalKeys(journal: Journal): string[] {
  return journal.queries
    .list()
    .map((p) => `${p.biometricCode}@${p.logTime}`)
    .sort();
}

/** The AcsEvent search conditions the simulator received, in order. */
export function searches(sim: HikvisionSim) {
  return sim
    .requests()
    .filter((r) => r.path === '/ISAPI/AccessControl/AcsEvent' && r.cond)
    .map((r) => r.cond as Record<string, unknown>);
}
