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

  it('holders that come back at once when put out do not take turns putting out a scraper before its request is read', () => {
    let now = 0;
    const b = new ConnectionBounds({ loopback: 2, lan: 48, perAddress: 4 }, () => now);
    // 70 addresses, 2 idle connections each: more than the LAN's 48 places. Each one put out comes back 50 ms later.
    const back: string[] = [];
    const hold = (address: string) => {
      const s = socket(address);
      s.once('close', () => back.push(address));
      b.admit(s);
    };
    for (let a = 0; a < 70; a++) for (let k = 0; k < 2; k++) hold(`10.0.3.${a}`);
    const tick = () => {
      now += 50;
      for (const address of back.splice(0)) hold(address);
    };
    for (let i = 0; i < 40; i++) tick(); // 2 s of holders coming back
    // A scraper connects; its request is read within 2 ticks (100 ms), on a slow box.
    const scraper = socket('10.0.4.1');
    expect(b.admit(scraper)).toBe(true);
    tick();
    tick();
    expect(scraper.destroyed).toBe(false);
    b.busy(scraper, true);
    expect(b.counts().lan).toBe(48);
    // Benches are bounded: 10,000 strangers put out leave at most 4,096 remembered.
    const many = new ConnectionBounds({ loopback: 1, lan: 1, perAddress: 1 }, () => now);
    for (let i = 0; i < 10_000; i++) many.admit(socket(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
    expect((many as unknown as { benched: Map<string, unknown> }).benched.size).toBe(4_096);
  });
});
