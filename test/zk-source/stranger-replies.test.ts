/**
 * Another device on the LAN answering in a terminal's name (its address forged), ahead of the
 * terminal: a made-up log, a made-up clock. The poll journals the terminal's punches only, and
 * says so in the log: a warning at the first poll, at debug while it goes on (no flood).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import {
  CMD,
  decodePacket,
  encodeAttendance40,
  encodeDataset,
  encodePacket,
} from '../../src/sources/zk/protocol/index.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeTerminal, type Hook } from '../zk-client/fake-terminal.js';
import { dataset40, makeAttendances } from '../zk-client/helpers.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

const REAL = makeAttendances(12);
const forgedLog = encodeDataset([
  encodeAttendance40({ uid: 9, userId: '6666', verifyType: 1, state: 0, logTime: '2025-11-20 08:00:00' }),
]);

/** Before each answer to these requests, a packet with the reply id awaited and another session's id. */
const stranger: Hook = (req, replies, conn) => {
  const forged = (command: number, data?: Buffer) =>
    encodePacket({ command, sessionId: (conn.sessionId + 1) & 0xffff, replyId: req.replyId, data });
  if (req.command === CMD.DATA_WRRQ) conn.send([forged(CMD.DATA, forgedLog)]);
  else if (req.command === CMD.GET_FREE_SIZES) conn.send([forged(CMD.ACK_OK, Buffer.alloc(92))]);
  else return undefined;
  conn.sendLater(30, replies);
  return [];
};

describe('replies forged in a terminal name', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('are not journalled; the log warns once, then says it at debug', async () => {
    const terminal = new FakeTerminal({ transport: 'tcp', attendance: dataset40(REAL), hook: stranger });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const lines: { level: number; msg: string; terminal?: string }[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
    });
    const deps = sourceDepsFor(fx.journal, logger, { now: () => Date.now() }, () => {});
    const cfg = zkConfig(port);

    const first = await pollTerminal(cfg, deps);
    expect(first).toMatchObject({ ok: true, records: REAL.length, added: REAL.length });
    const second = await pollTerminal(cfg, deps, undefined, undefined, { ...first.download!, at: 0 });
    expect(second).toMatchObject({ ok: true, records: REAL.length, duplicates: REAL.length });

    expect(journalKeys(fx.journal)).toEqual(REAL.map((r) => `${r.userId}@${r.logTime}`).sort());
    const said = lines.filter((l) => l.msg.includes('came in its name from another session'));
    expect(said.map((l) => l.level)).toEqual([40, 20]);
    expect(said[0]!.msg).toMatch(
      /^terminal gate-1: 2 replies .* not taken: another device .* Nothing those replies held was journalled/,
    );
  });

  it('a poll answered only from another session fails saying so, with nothing journalled', async () => {
    // Every answer after the CONNECT names another session than the one it opened.
    const terminal = new FakeTerminal({
      transport: 'tcp',
      attendance: dataset40(REAL),
      hook: (req, replies) =>
        req.command === CMD.CONNECT
          ? undefined
          : replies.map((r) => {
              const p = decodePacket(r);
              return encodePacket({ ...p, sessionId: (p.sessionId + 1) & 0xffff });
            }),
    });
    const port = await terminal.start();
    const fx = journalFixture();
    cleanups.push(() => terminal.stop(), fx.cleanup);
    const r = await pollTerminal(zkConfig(port, { timeoutMs: 300 }), fx.deps);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(
      /no answer from .* within 0.3 s; 1 reply came in its name from another session and was not taken: another device/,
    );
    expect(fx.journal.queries.list()).toEqual([]);
  });
});
