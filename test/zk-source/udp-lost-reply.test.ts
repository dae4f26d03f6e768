import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { CMD } from '../../src/sources/zk/protocol/index.js';
import { FakeTerminal } from '../zk-client/fake-terminal.js';
import { dataset16, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * Over UDP a datagram can be lost on the way either way (Wi-Fi, a busy switch). A lost answer to
 * one of the poll's short questions (counts, clock, serial, the download's start) failed the whole
 * poll as "no answer, check the cable", and the terminal showed offline. Such a question is asked
 * again while nothing of its answer came, within the same timeoutMs; an answer that was only slow
 * and comes twice is taken once.
 */
describe('ZK over UDP: a short question whose answer is lost', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const ASKED: number[] = [CMD.OPTIONS_RRQ, CMD.GET_FREE_SIZES, CMD.GET_TIME, CMD.DATA_WRRQ];

  it('is asked again: the poll reads every punch once', async () => {
    const lost = new Set<number>();
    const terminal = new FakeTerminal({
      transport: 'udp',
      attendance: dataset16(makeAttendances(300, false)),
      // The first answer to each of these questions is lost on the way.
      hook: (req, replies) => {
        if (!ASKED.includes(req.command) || lost.has(req.command)) return replies;
        lost.add(req.command);
        return [];
      },
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port, { transport: 'udp', timeoutMs: 900 }), fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, serial: 'FAKE0001', records: 300, added: 300 });
    expect([...lost].sort()).toEqual([...ASKED].sort());
    expect(journalKeys(fx.journal)).toHaveLength(300);
  });

  it('an answer that was only slow, and so comes twice, is taken once', async () => {
    const slowed = new Set<number>();
    const terminal = new FakeTerminal({
      transport: 'udp',
      attendance: dataset16(makeAttendances(300, false)),
      hook: (req, replies, conn) => {
        if (!ASKED.includes(req.command) || slowed.has(req.command)) return replies;
        slowed.add(req.command);
        conn.sendLater(450, replies); // after the question was asked again (at 300 ms)
        return [];
      },
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port, { transport: 'udp', timeoutMs: 900 }), fx.deps);
    expect(r, r.error).toMatchObject({ ok: true, records: 300, added: 300 });
    expect(journalKeys(fx.journal)).toHaveLength(300);
  });
});
