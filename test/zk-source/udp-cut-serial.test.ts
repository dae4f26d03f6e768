import { afterEach, describe, expect, it } from 'vitest';
import { CMD, encodeAttendance40 } from '../../src/sources/zk/protocol/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { FakeTerminal, type Hook } from '../zk-client/fake-terminal.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * Over UDP a reply datagram can arrive cut (found by the UDP fuzz, trial Y2): "~SerialNumber=FAKE"
 * without its NUL was taken for the serial "FAKE", the terminal for another device, and its whole
 * log journalled and delivered a second time under it. A value without its terminating NUL is cut
 * short: no serial, and the punches stay those of the device known.
 */
function attendance(): Buffer {
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
  return Buffer.concat([size, body]);
}

describe('ZK over UDP: a serial-number datagram cut short', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it.each([4, 2])('cut %i bytes before its end: no other device, no punch twice', async (cut) => {
    let lie = false;
    // The reply's tail is lost on the way: the datagram ends inside the serial's value.
    const hook: Hook = (req, replies) =>
      lie && req.command === CMD.OPTIONS_RRQ ? replies.map((r) => r.subarray(0, r.length - cut)) : replies;
    const fake = new FakeTerminal({ transport: 'udp', attendance: attendance(), hook });
    const fx = journalFixture();
    cleanups.push(() => fake.stop(), fx.cleanup);
    const cfg = zkConfig(await fake.start(), { transport: 'udp' });

    expect((await pollTerminal(cfg, fx.deps)).added).toBe(5);
    lie = true;
    const again = await pollTerminal(cfg, fx.deps);
    expect(again.added).toBe(0);
    expect(new Set(fx.journal.queries.list().map((p) => p.device))).toEqual(new Set(['FAKE0001']));
    expect(fx.deps.ledger.get('gate-1')?.serial).toBe('FAKE0001');
  });
});
