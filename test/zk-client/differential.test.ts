/**
 * Differential test: on the cases node-zklib 1.3.0 handles (user ids of at most 9 ASCII
 * characters, TCP with pacing, numeric ids over UDP, no DST gap), node-zklib and our client,
 * downloading from the same simulator, decode the same user ids and the same times.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatLogTime } from '../../src/punch.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { ZkClient } from '../../src/sources/zk/client/index.js';
import { tempDir } from '../helpers/tmp.js';

interface ZkLibLog {
  deviceUserId: string | number;
  recordTime: Date;
}
interface ZkLibUser {
  userId: string | number;
}
interface ZKLibInstance {
  createSocket(): Promise<void>;
  getUsers(): Promise<{ data: ZkLibUser[]; err: unknown }>;
  getAttendances(cb?: () => void): Promise<{ data: ZkLibLog[]; err: unknown }>;
  disconnect(): Promise<boolean>;
}
const ZKLib = createRequire(import.meta.url)('node-zklib') as new (
  ip: string,
  port: number,
  timeout: number,
  inport: number,
) => ZKLibInstance;

// node-zklib builds Dates in the process zone; in UTC (vitest.config.ts) no wall-clock time is skipped or doubled.
const wall = (d: Date) =>
  formatLogTime(d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());

const time = fc
  .record({
    y: fc.integer({ min: 2000, max: 2099 }),
    mo: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
  })
  .map((t) => formatLogTime(t.y, t.mo, t.d, t.h, t.mi, t.s));

let cwd = '';
let tmp: ReturnType<typeof tempDir> | undefined;
beforeAll(() => {
  cwd = process.cwd();
  tmp = tempDir('punchgate-diff-');
  process.chdir(tmp.dir); // node-zklib writes its error log into the cwd
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => {
  process.chdir(cwd);
  tmp?.cleanup();
  vi.restoreAllMocks();
});

describe('node-zklib and our client decode the same data', () => {
  for (const transport of ['tcp', 'udp'] as const) {
    it(`over ${transport.toUpperCase()}`, async () => {
      // node-zklib reads 16-bit user ids from UDP attendance records: keep them below 65536 there.
      const id = transport === 'tcp' ? /^[1-9][0-9]{0,8}$/ : /^[1-9][0-9]{0,3}$/;
      const userIds = fc.array(fc.stringMatching(id), { minLength: 1, maxLength: 30 });
      await fc.assert(
        fc.asyncProperty(userIds, fc.array(time, { minLength: 30, maxLength: 120 }), async (ids, times) => {
          const unique = [...new Set(ids)];
          const users = unique.map((userId, i) => ({ uid: i + 1, userId, name: `U${i}` }));
          const punches = times.map((logTime, i) => ({ userId: unique[i % unique.length]!, logTime }));
          const sim = await startTerminalSim({ users, punches, faults: { pacingMs: 3 }, tcp: transport === 'tcp' });
          try {
            const zk = new ZKLib('127.0.0.1', sim.port, 5000, 0);
            await zk.createSocket();
            const theirUsers = (await zk.getUsers()).data.map((u) => String(u.userId));
            const theirLogs = (await zk.getAttendances(() => {})).data.map(
              (l) => `${l.deviceUserId}@${wall(l.recordTime)}`,
            );
            await zk.disconnect();

            const ours = new ZkClient({ host: '127.0.0.1', port: sim.port, transport, timeoutMs: 5000 });
            await ours.connect();
            const ourUsers = (await ours.getUsers()).map((u) => u.userId);
            const ourLogs = (await ours.getAttendances()).map((a) => `${a.userId}@${a.logTime}`);
            await ours.disconnect();

            expect(ourUsers).toEqual(theirUsers);
            expect(ourLogs).toEqual(theirLogs);
            expect(ourLogs).toEqual(punches.map((p) => `${p.userId}@${p.logTime}`));
          } finally {
            await sim.stop();
          }
        }),
        { numRuns: 4, endOnFailure: true },
      );
    }, 60_000);
  }
});
