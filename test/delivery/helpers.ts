import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Deliverer, type DelivererOptions } from '../../src/delivery/index.js';
import type { AttendanceAnswer, AttendancePunch, AttendanceSender, SendOptions } from '../../src/hrms/attendance.js';
import { TokenSource } from '../../src/hrms/token.js';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { formatLogTime } from '../../src/punch.js';
import { startHrmsSim, type HrmsSim, type HrmsSimOptions } from '../../src/sim/hrms/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { Secrets } from '../../src/util/secrets.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { seededRandom } from '../../src/util/seeded-random.js';

export const TOKEN = 'delivery-test-token-1';
export const SITE = 'plant-t';

/** `n` distinct punches, one minute apart, over a handful of employees (all before the fake clock's now). */
export function makePunches(n: number, opts: { terminal?: string; codes?: number; start?: number } = {}): Punch[] {
  const codes = opts.codes ?? 7;
  const start = opts.start ?? 0;
  return Array.from({ length: n }, (_, k) => {
    const i = start + k;
    const minutes = i;
    return {
      terminal: opts.terminal ?? 'gate-1',
      biometricCode: String(100 + (i % codes)),
      logTime: formatLogTime(2026, 11, 1 + Math.floor(minutes / 1440), Math.floor(minutes / 60) % 24, minutes % 60, 0),
    };
  });
}

/** A Sleep that does not wait: it moves the fake clock and remembers what was asked. */
export function fakeSleep(clock: { advance(ms: number): void }) {
  const calls: number[] = [];
  const sleep = async (ms: number) => {
    calls.push(ms);
    clock.advance(ms);
  };
  return { sleep, calls };
}

export interface Rig {
  clock: ReturnType<typeof fakeClock>;
  tmp: ReturnType<typeof tempDir>;
  journal: Journal;
  sim: HrmsSim;
  config: Config;
  tokenFile: string;
  sleeps: number[];
  deliverer: Deliverer;
  /** A new Deliverer on the same journal (e.g. with other options). */
  makeDeliverer(extra?: Partial<DelivererOptions>): Deliverer;
  close(): Promise<void>;
}

export interface RigOptions {
  sim?: HrmsSimOptions;
  delivery?: Record<string, unknown>;
  hrms?: Record<string, unknown>;
  token?: string;
  random?: () => number;
}

/** A real journal on a temp file, the real simulator on 127.0.0.1, a fake clock shared by both. */
export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const clock = fakeClock();
  const tmp = tempDir('punchgate-delivery-');
  const tokenFile = tmp.path('token');
  writeFileSync(tokenFile, `${opts.token ?? TOKEN}\n`);
  const sim = await startHrmsSim({ tokens: [TOKEN], now: clock.now, ...opts.sim });
  const config = parseConfig(
    {
      site: SITE,
      journal: { path: tmp.path('journal.db') },
      // A long deadline: the simulator answers from this same process, which a loaded CI box may
      // hold for a second or more (a test of deadlines sets its own, as faults.test does).
      hrms: { baseUrl: sim.url, tokenFile, timeoutMs: 20_000, connectTimeoutMs: 5000, ...opts.hrms },
      delivery: { batchSize: 10, ...opts.delivery },
    },
    tmp.dir,
  );
  const journal = Journal.open({
    path: config.journal.path,
    site: SITE,
    mode: 'owner',
    clock,
    rejectedRetry: config.delivery.rejectedRetry,
    deadAfterAttempts: config.delivery.deadAfterAttempts,
    deadAfterDays: config.delivery.deadAfterDays,
  });
  const { sleep, calls } = fakeSleep(clock);
  const secrets = new Secrets();
  const deliverers: Deliverer[] = [];
  const makeDeliverer = (extra: Partial<DelivererOptions> = {}) => {
    const d = new Deliverer({
      queue: journal,
      state: journal.deliveryState,
      tokens: new TokenSource({ tokenFile, secrets, env: {} }),
      hrms: config.hrms!,
      delivery: config.delivery,
      logger: silentLogger(),
      clock,
      random: opts.random ?? seededRandom(7),
      sleep,
      ...extra,
    });
    deliverers.push(d);
    return d;
  };
  const deliverer = makeDeliverer();
  return {
    clock,
    tmp,
    journal,
    sim,
    config,
    tokenFile,
    sleeps: calls,
    deliverer,
    makeDeliverer,
    close: async () => {
      for (const d of deliverers) await d.close();
      journal.close();
      await sim.stop();
      tmp.cleanup();
    },
  };
}

/**
 * The end-to-end promise: every punch is in the HRMS's attendance exactly once, with the
 * devicelogId the journal gave it, and the journal has them all delivered.
 */
export function expectDeliveredExactlyOnce(rig: Rig, punches: readonly Punch[]): void {
  const recorded = new Map<string, number>();
  for (const a of rig.sim.attendance()) {
    const k = `${a.biometriccode}|${a.logDate}`;
    recorded.set(k, (recorded.get(k) ?? 0) + 1);
  }
  for (const p of punches)
    expect(recorded.get(`${p.biometricCode}|${p.logTime}`), `${p.biometricCode} ${p.logTime}`).toBe(1);
  expect(rig.sim.attendance()).toHaveLength(punches.length);
  const stored = rig.journal.queries.list({ state: 'delivered' });
  expect(stored).toHaveLength(punches.length);
  const ids = new Map(stored.map((s) => [`${s.biometricCode}|${s.logTime}`, s.devicelogId]));
  for (const a of rig.sim.attendance()) expect(a.devicelogId).toBe(ids.get(`${a.biometriccode}|${a.logDate}`));
  const c = rig.journal.queries.counts();
  expect({ pending: c.pending, inflight: c.inflight, rejected: c.rejected, dead: c.dead }).toEqual({
    pending: 0,
    inflight: 0,
    rejected: 0,
    dead: 0,
  });
}

/** Answers scripted in advance; records what was sent (the HTTP layer is tested separately). */
export class ScriptedSender implements AttendanceSender {
  readonly sent: AttendancePunch[][] = [];
  readonly tokens: string[] = [];
  constructor(
    private readonly script: Array<AttendanceAnswer | ((batch: readonly AttendancePunch[]) => AttendanceAnswer)>,
  ) {}

  async send(punches: readonly AttendancePunch[], opts: SendOptions): Promise<AttendanceAnswer> {
    this.sent.push([...punches]);
    this.tokens.push(opts.token);
    const next = this.script.length > 1 ? this.script.shift() : this.script[0];
    if (!next) throw new Error('script exhausted');
    return typeof next === 'function' ? next(punches) : next;
  }
}

/** An answer accepting every punch of the batch. */
export const acceptAll = (batch: readonly AttendancePunch[]): AttendanceAnswer => ({
  kind: 'answered',
  httpStatus: 200,
  overall: true,
  results: batch.map(() => ({ status: true, message: 'Attendance added successfully' })),
});
