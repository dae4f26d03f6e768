import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSerialSim } from '../../src/sim/serial/index.js';
import { waitFor } from '../helpers/wait.js';
import { requireSocat } from './helpers.js';
import { startReadersDaemon } from './readers-daemon-stack.js';

/**
 * An EM-18 (12 hex digits and a pause: `framing: length`, `frameBytes: 12`) and a 7941E (binary packets holding
 * ETX in every card's bytes: the default framing) through the real daemon (dist/punchgate.js) into
 * its journal and on to the HRMS simulator: every good read delivered once as the number printed
 * on the tag, no read with a wrong checksum delivered, and no framing alert.
 */
describe('EM-18 and 7941E readers through the daemon', () => {
  beforeAll(requireSocat);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('journals and delivers each card once, checksums checked', async () => {
    const {
      pairs: [em18, p7941],
      stack,
      d,
      status,
    } = await startReadersDaemon(cleanups, [
      { name: 'em18-door', framing: 'length', frameBytes: 12 },
      { name: 'desk-7941' },
    ]);

    const cards: string[] = [];
    const bad: string[] = [];
    const onLine = (l: string, kind: string) => (kind === 'punch' ? cards : bad).push(l);
    const codes = (from: number) => Array.from({ length: 15 }, (_, i) => String(from + i * 65_793).padStart(10, '0'));
    const [r1, r2] = await Promise.all([
      startSerialSim({
        path: em18.peerPath,
        format: 'card',
        reader: 'em18',
        rate: 0,
        count: 15,
        noise: 0.4,
        seed: 2,
        codes: codes(168_624_643),
        onLine,
      }).done,
      startSerialSim({
        path: p7941.peerPath,
        format: 'card',
        reader: '7941e',
        rate: 0,
        count: 15,
        noise: 0.4,
        seed: 4,
        codes: codes(4_521_000),
        onLine,
      }).done,
    ]);
    expect(r1.punches + r2.punches).toBe(30);
    expect(bad.length).toBeGreaterThan(3);

    const delivered = () => stack.hrms.attendance().map((p) => p.biometriccode);
    await waitFor(() => delivered().length >= 30, 30_000, 'the cards delivered');
    expect(delivered().sort()).toEqual([...cards].sort());
    const st = await status();
    expect(st.alertItems.filter((a) => a.kind === 'serial-unframed')).toEqual([]);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    expect(d.output()).toMatch(/EM4100 checksum wrong/);
    expect(d.output()).toMatch(/binary card packet BCC wrong/);
  }, 120_000);
});
