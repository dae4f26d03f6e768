import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionBounds } from '../../src/web/connection-bounds.js';

/** A socket as ConnectionBounds sees it: an address, destroy(), and 'close'. */
function socket(remoteAddress: string) {
  const s = Object.assign(new EventEmitter(), {
    remoteAddress,
    destroyed: false,
    destroy() {
      if (s.destroyed) return s;
      s.destroyed = true;
      s.emit('close');
      return s;
    },
  });
  return s as typeof s & Socket;
}

describe('the status server’s connection bounds', () => {
  it('keeps the box its reserve, bounds each LAN address, and gives an idle place, never a busy one, to a newcomer', () => {
    const b = new ConnectionBounds({ loopback: 2, lan: 4, perAddress: 2 });
    // One address cannot hold more than 2: its own oldest idle one goes.
    const a1 = socket('192.168.1.50');
    const a2 = socket('192.168.1.50');
    const a3 = socket('192.168.1.50');
    expect([b.admit(a1), b.admit(a2), b.admit(a3)]).toEqual([true, true, true]);
    expect([a1.destroyed, a2.destroyed, a3.destroyed]).toEqual([true, false, false]);
    // The LAN's share is 4: a newcomer takes the oldest idle one's place, not a busy one's.
    const others = ['192.168.1.51', '192.168.1.52'].map(socket);
    for (const s of others) expect(b.admit(s)).toBe(true);
    b.busy(a2, true);
    const scraper = socket('192.168.1.99');
    expect(b.admit(scraper)).toBe(true);
    expect(a2.destroyed).toBe(false);
    expect(a3.destroyed).toBe(true);
    expect(b.counts()).toEqual({ loopback: 0, lan: 4 });
    // The box itself is never refused for the LAN's sake.
    const local = [socket('127.0.0.1'), socket('::1'), socket('::ffff:127.0.0.1')];
    for (const s of local) expect(b.admit(s)).toBe(true);
    expect(local[0]!.destroyed).toBe(true);
    expect(b.counts()).toEqual({ loopback: 2, lan: 4 });
    // All busy: the newcomer waits outside (refused), nothing serving is cut.
    for (const s of [a2, ...others, scraper, ...local]) b.busy(s, true);
    const late = socket('192.168.1.100');
    expect(b.admit(late)).toBe(false);
    expect(late.destroyed).toBe(true);
    expect([a2, ...others, scraper].some((s) => s.destroyed)).toBe(false);
  });
});
