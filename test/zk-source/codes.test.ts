import { afterEach, describe, expect, it } from 'vitest';
import { codeProblem } from '../../src/punch.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { decodeAttendances, encodeAttendance40, encodeDataset } from '../../src/sources/zk/protocol/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { ZkSource } from '../../src/sources/zk/zk-source.js';
import { captureLogger } from '../serial/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/** A terminal whose log holds user ids no HRMS should ever see: they are reported, never journalled. */
describe('ZK user ids that are not usable biometric codes', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const hostile = ['10\u001b[2J', '\u202e1001', '10\u000d01', '1\u200b2'];

  it('a poll journals the good records, counts and logs the bad ones with their record numbers', async () => {
    const sim = await startTerminalSim({
      users: [{ uid: 1, userId: '1001', name: 'A' }],
      punches: [
        { userId: '1001', logTime: '2026-11-20 08:00:00' },
        ...hostile.map((userId, i) => ({ userId, logTime: `2026-11-20 08:0${i + 1}:00` })),
        { userId: '1001', logTime: '2026-11-20 17:00:00' },
      ],
    });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const log = captureLogger('info');
    const r = await pollTerminal(zkConfig(sim.port), { ...fx.deps, logger: log.logger });
    expect(r).toMatchObject({ ok: true, records: 6, added: 2, badCodes: 4 });
    expect(journalKeys(fx.journal)).toEqual(['1001@2026-11-20 08:00:00', '1001@2026-11-20 17:00:00']);
    const warning = log.entries.find((e) => /unusable user id/.test(e.msg));
    expect(warning).toMatchObject({
      count: 4,
      records: [
        { record: 2, reason: 'biometric code has a control character (U+001B)' },
        { record: 3, reason: 'biometric code has a bidirectional control (U+202E)' },
        { record: 4, reason: 'biometric code has a control character (U+000D)' },
        { record: 5, reason: 'biometric code has an invisible formatting character (U+200B)' },
      ],
    });
    // Never cleared while refused records are on it: they would be lost.
    const again = await pollTerminal(zkConfig(sim.port, { clearAfterDays: 1 }), fx.deps);
    expect(again).toMatchObject({ ok: true, cleared: false });
  });

  it('a real-time event with such a code is not journalled; a good one is', async () => {
    const sim = await startTerminalSim({ users: [{ uid: 1, userId: '1042', name: 'A' }], punches: [] });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const src = new ZkSource(zkConfig(sim.port, { realtime: true }), fx.deps, { scheduler: () => () => {} });
    cleanups.push(() => src.stop());
    await src.start();
    await waitFor(() => fx.journal.terminals.get('gate-1')?.online === true);
    await waitFor(() => sim.sessions() === 1, 10_000, 'only the real-time session left');
    sim.addPunch({ userId: '\u202e1042', logTime: '2026-11-22 09:14:00' });
    sim.addPunch({ userId: '1042', logTime: '2026-11-22 09:15:00' });
    await waitFor(() => fx.journal.counts().pending === 1);
    expect(journalKeys(fx.journal)).toEqual(['1042@2026-11-22 09:15:00']);
  });

  it('bytes that are not UTF-8 in a record decode to U+FFFD, which the rule refuses', () => {
    const record = encodeAttendance40({
      uid: 1,
      userId: '10XY',
      verifyType: 1,
      state: 0,
      logTime: '2026-11-20 08:00:00',
    });
    record.set([0xff, 0xfe], 4); // the user id field starts at byte 2: "10" then two bytes that are not UTF-8
    const [a] = decodeAttendances(encodeDataset([record])).records;
    expect(codeProblem(a!.userId)).toBe('biometric code has bytes that are not UTF-8 (U+FFFD)');
  });
});
