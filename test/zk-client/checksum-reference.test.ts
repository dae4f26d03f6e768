/**
 * The checksum we send against the one pyzk puts on the wire. fananimi/pyzk zk/base.py
 * `__create_header` sums the header with the reply id *before* incrementing it, as
 * 65534 − (sum mod 65535), then sends the incremented id; transcribed below. That is the device's
 * own checksum (adrobinoga) of the packet sent, which ours computes directly: a terminal that
 * takes pyzk's packets takes ours. (Terminals' replies in pyzk's recorded sessions carry this
 * checksum too; the client does not check replies, as no client library does.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePacket } from '../../src/sources/zk/protocol/index.js';

function pyzkChecksum(p: Buffer): number {
  let l = p.length;
  let c = 0;
  let i = 0;
  while (l > 1) {
    c += p.readUInt16LE(i);
    i += 2;
    if (c > 65535) c -= 65535;
    l -= 2;
  }
  if (l) c += p[p.length - 1] as number;
  while (c > 65535) c -= 65535;
  c = ~c;
  while (c < 0) c += 65535;
  return c;
}

describe('ZK checksum against pyzk', () => {
  it('what we send carries the checksum pyzk sends for the same packet', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 1, max: 65533 }),
        fc.uint8Array({ maxLength: 40 }),
        (command, sessionId, replyId, data) => {
          const sent = encodePacket({ command, sessionId, replyId, data: Buffer.from(data) });
          const beforeIncrement = Buffer.from(sent);
          beforeIncrement.writeUInt16LE(0, 2);
          beforeIncrement.writeUInt16LE(replyId - 1, 6);
          expect(sent.readUInt16LE(2)).toBe(pyzkChecksum(beforeIncrement));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
