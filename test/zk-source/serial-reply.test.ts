import { afterEach, describe, expect, it } from 'vitest';
import { CMD, encodeAttendance40, encodePacket } from '../../src/sources/zk/protocol/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { FakeTerminal, type Hook } from '../zk-client/fake-terminal.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * An OPTIONS_RRQ(~SerialNumber) answered with something that is not that option (cut short, or
 * another option's text) is no serial. Found by an adversarial trial: "~Serial" (the reply cut
 * after 7 bytes) was taken for the serial, the terminal for another device, and its whole log
 * journalled again under it: every punch a second time to the HRMS.
 */
describe('ZK polling: a serial-number reply that is not one', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each(['~Serial', '~ZKFPVersion=10', '~'])(
    '%j is no serial: the punches stay those of the known device',
    async (said) => {
      // Five records: the fake announces five.
      const body = Buffer.concat(
        [0, 1, 2, 3, 4].map((i) =>
          encodeAttendance40({
            uid: i + 1,
            userId: String(4001 + i),
            verifyType: 1,
            state: 0,
            logTime: `2025-11-20 08:0${i}:00`,
          }),
        ),
      );
      const size = Buffer.alloc(4);
      size.writeUInt32LE(body.length, 0);
      let lie = false;
      const hook: Hook = (req, replies) =>
        lie && req.command === CMD.OPTIONS_RRQ
          ? [encodePacket({ command: CMD.ACK_OK, sessionId: 0, replyId: req.replyId, data: Buffer.from(`${said}\0`) })]
          : replies;
      const fake = new FakeTerminal({ transport: 'tcp', attendance: Buffer.concat([size, body]), hook });
      const fx = journalFixture();
      cleanups.push(() => fake.stop(), fx.cleanup);
      const cfg = zkConfig(await fake.start());

      expect((await pollTerminal(cfg, fx.deps)).added).toBe(5);
      lie = true;
      const again = await pollTerminal(cfg, fx.deps);
      expect(again.added).toBe(0);
      expect(new Set(fx.journal.queries.list().map((p) => p.device))).toEqual(new Set(['FAKE0001']));
      expect(fx.deps.ledger.get('gate-1')?.serial).toBe('FAKE0001');
    },
  );
});
