/**
 * The simulator speaks the record forms and logins of real firmware (49 bytes; 8 bytes with the time at
 * byte 4; a login asked for with no Comm Key set), and a poll reads them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import type { SimFirmware } from '../../src/sim/terminal/types.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, zkConfig } from './helpers.js';

const keys = (sim: TerminalSim) => [...new Set(sim.punches().map((p) => `${p.userId}@${p.logTime}`))].sort();

describe('simulated firmware record forms', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const forms: [string, SimFirmware][] = [
    ['49-byte records', { attendanceRecord: 49 }],
    ['8-byte records, time at byte 4', { attendanceRecord: 8, timeByte8: 4 }],
    ['8-byte records, time at byte 3', { attendanceRecord: 8 }],
    // No Comm Key set, and still "comm key required" (2005) to the connect: key 0 is taken (see handshake.ts).
    ['a login asked for with no Comm Key set', { connectReply: 2005, connectAuth: 'accept' }],
  ];
  for (const [what, firmwareQuirks] of forms) {
    it(`${what}: every punch journalled under its user id and time`, async () => {
      const sim = await startTerminalSim({
        generate: { users: 12, punches: 400, startTime: '2026-01-05 08:00:00', seed: 5 },
        firmwareQuirks,
      });
      const fx = journalFixture();
      cleanups.push(() => sim.stop(), fx.cleanup);
      const r = await pollTerminal(zkConfig(sim.port), fx.deps);
      expect(r).toMatchObject({ ok: true, records: 400, quarantined: 0, badCodes: 0 });
      const got = fx.journal.queries
        .list()
        .map((p) => `${p.biometricCode}@${p.logTime}`)
        .sort();
      expect(got).toEqual(keys(sim));
    });
  }
});
