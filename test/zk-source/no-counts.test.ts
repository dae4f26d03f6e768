/**
 * A terminal whose GET_FREE_SIZES gives no usable counts: a WL20 answers it with a single 4-byte 0
 * (fananimi/pyzk issue #76, from its capture). Its log is still read and journalled; nothing that
 * needs the count happens (no clearing on a guess).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkZkTerminal } from '../../src/check/zk-check.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { CMD } from '../../src/sources/zk/protocol/index.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

/** A terminal answering GET_FREE_SIZES with a single 4-byte 0, as the WL20 of pyzk #76 does. */
function countlessTerminal(punches: ReturnType<typeof makeAttendances>): FakeTerminal {
  return new FakeTerminal({
    transport: 'tcp',
    attendance: dataset40(punches),
    hook: (req, replies, conn) =>
      req.command === CMD.GET_FREE_SIZES
        ? [reply(req, CMD.ACK_OK, conn.sessionId, Buffer.from('00000000', 'hex'))]
        : replies,
  });
}

describe('a terminal that reports no record counts', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is polled: every record journalled, its log never cleared', async () => {
    const punches = makeAttendances(30);
    const terminal = countlessTerminal(punches);
    const port = await terminal.start();
    const fx = journalFixture(() => Date.parse('2030-01-01T12:00:00Z'));
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const cfg = zkConfig(port, { clearAfterDays: 1 });
    const r = await pollTerminal(cfg, fx.deps);
    expect(r).toMatchObject({ ok: true, records: 30, added: 30, cleared: false });
    const again = await pollTerminal(cfg, fx.deps, undefined, undefined, r.download);
    expect(again).toMatchObject({ ok: true, unchanged: false, records: 30, duplicates: 30, cleared: false });
    expect(terminal.requests.some((q) => q.command === CMD.CLEAR_ATTLOG)).toBe(false);
    expect(fx.journal.terminals.get('gate-1')).toMatchObject({ online: true, lastError: null, records: 30 });
  });

  it('is warned about once, not at every poll (a poll a minute made 1,440 warnings a day)', async () => {
    const terminal = countlessTerminal(makeAttendances(5));
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    const deps = sourceDepsFor(fx.journal, logger, { now: () => Date.now() }, () => {});
    const cfg = zkConfig(port);
    let mark = (await pollTerminal(cfg, deps)).download;
    for (let i = 0; i < 3; i++) mark = (await pollTerminal(cfg, deps, undefined, undefined, mark)).download;
    const said = lines.filter((l) => l.msg.includes('does not report its record counts'));
    expect(said.map((l) => l.level)).toEqual([40, 20, 20, 20]);
    expect(fx.journal.queries.list()).toHaveLength(5);
  });
});

describe('punchgate check of a terminal that reports no record counts', () => {
  it('warns with what the poll does and the fix, instead of failing', async () => {
    const terminal = countlessTerminal(makeAttendances(3));
    const port = await terminal.start();
    try {
      const r = await checkZkTerminal(zkConfig(port, { skewThresholdSeconds: 1e9 }), 0, {
        clock: { now: () => Date.now() },
      });
      expect(r.status).toBe('warn');
      expect(r.detail).toMatch(/does not report its record counts.*never clears it/);
      expect(r.fix).toMatch(/clear its log at the terminal/);
    } finally {
      await terminal.stop();
    }
  });
});
