/**
 * One download of a terminal's whole attendance log into a fresh journal, by our client
 * (pollTerminal: the real poll) or by node-zklib 1.3.0, in a process of its own: node-zklib
 * console.logs, writes DDMMYYYY.err.log into the cwd (the parent gives this child a scratch
 * cwd) and can crash its process on a timeout (B1.1), which must not take the bench down.
 * The timed span is the same on both sides: connect, download, journal (one ingest call), disconnect.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { zkTerminalSchema } from '../src/config/terminals.js';
import { Journal } from '../src/journal/index.js';
import type { PunchSink } from '../src/journal/types.js';
import { formatLogTime, type Punch } from '../src/punch.js';
import { generatePunches, generateUsers } from '../src/sim/terminal/generate.js';
import { sourceDepsFor } from '../src/sources/deps.js';
import { pollTerminal } from '../src/sources/zk/poll.js';
import { systemClock } from '../src/util/clock.js';
import { silentLogger } from '../src/util/logger.js';
import { announceReady, serve } from './lib/child-rpc.js';
import { BENCH_SITE } from './lib/setup.js';
import { nowMs } from './lib/timing.js';

export interface DownloadResult {
  /** Records the client handed over. */
  records: number;
  /** Punches the journal holds afterwards. */
  journalled: number;
  ms: number;
  /** Of `ms`, the time spent in the journal's ingest call. */
  journalMs: number;
  /** Journalled punches that are not on the terminal (decoded from a misaligned buffer). */
  bogus: number;
  error?: string;
}

interface ZkLog {
  deviceUserId: string | number;
  recordTime: Date;
}
interface ZKLibInstance {
  createSocket(): Promise<void>;
  getInfo(): Promise<{ logCounts: number }>;
  getAttendances(): Promise<{ data: ZkLog[]; err: unknown }>;
  disconnect(): Promise<boolean>;
}
type ZKLibCtor = new (ip: string, port: number, timeout: number, inport: number) => ZKLibInstance;

const TERMINAL = 'zk-bench';
const describe = (e: unknown): string =>
  e instanceof Error
    ? e.message
    : typeof e === 'object' && e !== null && 'err' in e
      ? describe((e as { err: unknown }).err)
      : String(e);

/** The journal, with the time spent in ingest() measured. */
function timedSink(journal: Journal): { sink: PunchSink; ms: () => number } {
  let ms = 0;
  return {
    sink: {
      ingest: (punches, opts) => {
        const t0 = nowMs();
        try {
          return journal.ingest(punches, opts);
        } finally {
          ms += nowMs() - t0;
        }
      },
    },
    ms: () => ms,
  };
}

type Outcome = Omit<DownloadResult, 'journalled' | 'bogus'>;

async function ours(port: number, journal: Journal): Promise<Outcome> {
  const cfg = zkTerminalSchema.parse({
    name: TERMINAL,
    kind: 'zk',
    host: '127.0.0.1',
    port,
    transport: 'tcp',
    timeoutMs: 10_000,
  });
  const timed = timedSink(journal);
  const t0 = nowMs();
  const r = await pollTerminal(cfg, { ...sourceDepsFor(journal, silentLogger(), systemClock), sink: timed.sink });
  const ms = nowMs() - t0;
  return { records: r.records, ms, journalMs: timed.ms(), ...(r.error ? { error: r.error } : {}) };
}

/** node-zklib builds Dates in the process zone from the terminal's wall-clock fields: read them back the same way. */
const wall = (d: Date) =>
  formatLogTime(d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());

async function zklib(port: number, journal: Journal): Promise<Outcome> {
  const ZKLib = createRequire(import.meta.url)('node-zklib') as ZKLibCtor;
  console.log = () => {};
  const timed = timedSink(journal);
  const t0 = nowMs();
  const zk = new ZKLib('127.0.0.1', port, 10_000, 0);
  let records = 0;
  let error: string | undefined;
  try {
    await zk.createSocket();
    await zk.getInfo();
    const logs = await zk.getAttendances();
    records = logs.data.length;
    if (logs.err) error = describe(logs.err);
    const punches: Punch[] = logs.data.map((l) => ({
      terminal: TERMINAL,
      device: '',
      biometricCode: String(l.deviceUserId),
      logTime: wall(l.recordTime),
    }));
    timed.sink.ingest(punches);
    // The count check a careful poll makes after the download (ours reads the counts too):
    // this is where a desynchronised reply stream (a separately sent trailing ACK) shows.
    await zk.getInfo().catch((e: unknown) => {
      error ??= `count check after the download failed: ${describe(e)}`;
    });
    await zk.disconnect();
  } catch (e) {
    error ??= describe(e);
  }
  const ms = nowMs() - t0;
  return { records, ms, journalMs: timed.ms(), ...(error ? { error } : {}) };
}

/** The terminal's log as the simulator generates it (same generator, same seed): `userId|logTime`. */
function expectedKeys(users: number, punches: number): Set<string> {
  const u = generateUsers(users, []);
  return new Set(generatePunches(punches, u).map((p) => `${p.userId}|${p.logTime}`));
}

/** Punches in the journal, and how many of them are not on the terminal. */
function audit(journal: Journal, expected: Set<string>): { journalled: number; bogus: number } {
  const rows = journal.db.prepare('SELECT biometric_code AS code, log_time AS t FROM punches').all() as {
    code: string;
    t: string;
  }[];
  return { journalled: rows.length, bogus: rows.filter((r) => !expected.has(`${r.code}|${r.t}`)).length };
}

serve({
  download: async (m) => {
    const journal = Journal.open({ path: join(process.cwd(), 'journal.db'), site: BENCH_SITE, mode: 'owner' });
    try {
      const r = await (m.client === 'zklib' ? zklib : ours)(Number(m.port), journal);
      return { ...r, ...audit(journal, expectedKeys(Number(m.users), Number(m.punches))) } satisfies DownloadResult;
    } finally {
      journal.close();
    }
  },
});
announceReady({ pid: process.pid });
