import { afterEach, describe, expect, it } from 'vitest';
import { CMD, encodePacket } from '../../src/sources/zk/protocol/index.js';
import type { Hook } from './fake-terminal.js';
import { setup } from './helpers.js';

/**
 * An empty attendance log (a new terminal, one just cleared) in each form an answer can take: the
 * dataset `00 00 00 00` sent whole (TCP) or in one 4-byte piece (UDP), a whole answer with no
 * bytes at all, and a stat announcing 0 bytes. Each is an empty log, read without a piece asked for
 * nothing and without a byte counted as malformed (which would keep the log from being cleared).
 */
describe('an empty attendance log', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const answered = (data: Buffer, command: number = CMD.DATA): Hook =>
    ((req, replies, conn) =>
      req.command === CMD.DATA_WRRQ
        ? [encodePacket({ command, sessionId: conn.sessionId, replyId: req.replyId, data })]
        : replies) as Hook;
  const stat0 = Buffer.alloc(13);

  const cases: [string, 'tcp' | 'udp', Hook | undefined][] = [
    ['TCP: 00 00 00 00 sent whole', 'tcp', undefined],
    ['UDP: 00 00 00 00 in one piece', 'udp', undefined],
    ['TCP: a whole answer without bytes', 'tcp', answered(Buffer.alloc(0))],
    ['UDP: a stat announcing 0 bytes', 'udp', answered(stat0, CMD.ACK_OK)],
  ];
  for (const [name, transport, hook] of cases) {
    it(name, async () => {
      const { zk, terminal, cleanup } = await setup({ transport, attendance: Buffer.alloc(4), hook });
      cleanups.push(cleanup);
      await zk.connect();
      expect(await zk.getAttendances()).toEqual([]);
      expect(zk.lastDownload).toMatchObject({ malformedBytes: 0, suspectRecords: 0 });
      const rdy = terminal.requests.filter((q) => q.command === CMD.DATA_RDY);
      expect(rdy.every((q) => q.data.readUInt32LE(4) > 0)).toBe(true);
      await zk.disconnect();
    });
  }
});
