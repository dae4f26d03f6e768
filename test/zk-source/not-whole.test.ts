import { afterEach, describe, expect, it } from 'vitest';
import { CMD, encodeAttendance40 } from '../../src/sources/zk/protocol/index.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { FakeTerminal } from '../zk-client/fake-terminal.js';
import { journalFixture, journalKeys, zkConfig } from './helpers.js';

/**
 * A log whose size is not whole records (a broken firmware, or a device at the terminal's address
 * answering something else): the whole records are journalled, but the bytes left over may be part
 * of a punch not read. Found by an adversarial trial: five delivered punches and 20 stray bytes,
 * and the next poll cleared the terminal's log.
 */
describe('ZK polling: a download that is not whole records', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('keeps the whole records and never clears the log after it', async () => {
    const times = ['08:00', '08:05', '08:10', '08:15', '08:20'].map((t) => `2025-11-20 ${t}:00`);
    const records = times.map((logTime, i) =>
      encodeAttendance40({ uid: i + 1, userId: String(4001 + i), verifyType: 1, state: 0, logTime }),
    );
    // Five 40-byte records (the fake announces five) and 20 bytes that make no record.
    const body = Buffer.concat([...records, Buffer.alloc(20, 0x41)]);
    const size = Buffer.alloc(4);
    size.writeUInt32LE(body.length, 0);
    const fake = new FakeTerminal({ transport: 'tcp', attendance: Buffer.concat([size, body]) });
    const fx = journalFixture();
    cleanups.push(() => fake.stop(), fx.cleanup);
    const cfg = zkConfig(await fake.start(), { clearAfterDays: 1 });

    const first = await pollTerminal(cfg, fx.deps);
    expect(first.ok, first.error).toBe(true);
    expect(journalKeys(fx.journal)).toEqual(times.map((t, i) => `${4001 + i}@${t}`));

    // All five delivered and old enough: still not cleared, the 20 bytes were never read as a punch.
    fx.journal.settle(fx.journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const second = await pollTerminal(cfg, fx.deps);
    expect(second.cleared).toBe(false);
    expect(fake.requests.some((r) => r.command === CMD.CLEAR_ATTLOG)).toBe(false);
  });
});
