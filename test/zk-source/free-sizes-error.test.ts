/**
 * Firmware that answers CMD_GET_FREE_SIZES with CMD_ACK_ERROR (no counts at all): the variant the
 * capture trial names, beside the count-less answers readCounts (src/sources/zk/poll.ts) cites
 * from https://github.com/fananimi/pyzk/issues/76 and /126. A minimal reconstruction on the fake
 * terminal, over TCP and UDP: the log is still read and journalled once, and the poll succeeds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { CMD } from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal, reply } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

describe('a terminal answering GET_FREE_SIZES with ACK_ERROR', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each(['tcp', 'udp'] as const)('over %s: every record journalled once, the poll succeeds', async (transport) => {
    const terminal = new FakeTerminal({
      transport,
      attendance: dataset40(makeAttendances(40)),
      hook: (req, replies, conn) =>
        req.command === CMD.GET_FREE_SIZES ? [reply(req, CMD.ACK_ERROR, conn.sessionId)] : replies,
    });
    const port = await terminal.start();
    const fx = journalFixture(() => Date.parse('2030-01-01T12:00:00Z'));
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const cfg = zkConfig(port, { transport, clearAfterDays: 1 });
    const r = await pollTerminal(cfg, fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, records: 40, added: 40, cleared: false });
    const again = await pollTerminal(cfg, fx.deps);
    expect(again).toMatchObject({ ok: true, added: 0, cleared: false });
    expect(fx.journal.queries.list()).toHaveLength(40);
  });
});
