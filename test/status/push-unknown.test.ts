import { describe, expect, it } from 'vitest';
import { ALERT } from '../../src/status/alert-words.js';

/** The summary of unknown push serials counts serials, not (serial, address) pairs (an adversarial trial saw "6" for 4). */
describe('unknown serials pushing, summed up', () => {
  it('counts each serial once, whatever the addresses it pushed from, and names each once', () => {
    const rows = [
      { serial: 'FAKE1', address: '127.0.0.2', count: 3 },
      { serial: 'FAKE1', address: '127.0.0.3', count: 2 },
      { serial: 'FAKE2', address: '127.0.0.2', count: 1 },
      { serial: 'FAKE2', address: '127.0.0.4', count: 1 },
      { serial: 'FAKE3', address: '127.0.0.2', count: 1 },
      { serial: 'FAKE4', address: '127.0.0.5', count: 1 },
    ];
    const a = ALERT.pushUnknownSerials(rows);
    expect(a.cause).toMatch(
      /^4 unknown serials pushing \(9 requests refused, from 127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4, 127\.0\.0\.5; e\.g\. SN=FAKE1, SN=FAKE2, SN=FAKE3\)/,
    );
  });
});
