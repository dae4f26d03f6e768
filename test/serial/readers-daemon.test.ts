import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSerialSim } from '../../src/sim/serial/index.js';
import { waitFor } from '../helpers/wait.js';
import { requireSocat } from './helpers.js';
import { startReadersDaemon } from './readers-daemon-stack.js';

/**
 * Card readers that frame, not line, through the real daemon (dist/punchgate.js as a child
 * process) to the HRMS simulator: an RDM6300 (STX/ETX frames, no line ends, some with a wrong
 * checksum), a Wiegand-to-RS232 converter whose keypad keys come as bare bytes before the card
 * lines, and a reader that sends only noise (an alert naming it and the framing to try, within
 * its noFrameAlertSeconds, here 2 s). All three on the default framing (auto).
 */
describe('serial readers that frame, not line, through the daemon', () => {
  beforeAll(requireSocat);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('journals and delivers RDM6300 cards (bad checksums skipped), keeps keypad keys off the cards, and alerts on noise', async () => {
    const {
      pairs: [rdm, wg, noisy],
      stack,
      d,
      status,
    } = await startReadersDaemon(cleanups, [
      { name: 'rfid-1' },
      { name: 'door-kp' },
      { name: 'noisy', noFrameAlertSeconds: 2 },
    ]);

    const cards: string[] = [];
    const bad: string[] = [];
    const r1 = await startSerialSim({
      path: rdm.peerPath,
      format: 'card',
      reader: 'rdm6300',
      rate: 0,
      count: 20,
      noise: 0.5,
      seed: 3,
      onLine: (l, kind) => (kind === 'punch' ? cards : bad).push(l),
    }).done;
    expect(r1.punches).toBe(20);
    expect(bad.length).toBeGreaterThan(3);

    const wgCards: string[] = [];
    const keys: string[] = [];
    const r2 = await startSerialSim({
      path: wg.peerPath,
      format: 'card',
      reader: 'wiegand-keypad',
      rate: 0,
      count: 5,
      codes: ['0000123478', '0000123479', '0000123480', '0000123481', '0000123482'],
      onLine: (l, kind) => (kind === 'punch' ? wgCards : keys).push(l),
    }).done;
    expect(r2).toMatchObject({ punches: 5, keys: 5 });

    const noise = startSerialSim({ path: noisy.peerPath, format: 'card', reader: 'noise', rate: 20 });
    cleanups.push(() => noise.stop());

    const delivered = () => stack.hrms.attendance().map((p) => p.biometriccode);
    const expected = [...cards, ...wgCards].sort();
    await waitFor(() => delivered().length >= expected.length, 30_000, 'the cards delivered');
    // Every good frame once, as the number printed on the tag; no bad frame, no key, no glued card.
    expect(delivered().sort()).toEqual(expected);
    expect(cards[0]).toBe('0004521000');
    expect(delivered()).not.toContain(`3${wgCards[0]}`);

    await waitFor(
      async () => (await status()).alertItems.some((a) => a.kind === 'serial-unframed'),
      20_000,
      'the noise alert',
    );
    const alert = (await status()).alertItems.find((a) => a.kind === 'serial-unframed')!;
    expect(alert.cause).toMatch(/^terminal noisy sends bytes that make no card read or line \(\d+ bytes since/);
    expect(alert.fix).toMatch(/framing: gap/);
    const st = await status();
    // Only the noisy reader: the others made reads.
    expect(st.alertItems.filter((a) => a.kind === 'serial-unframed')).toHaveLength(1);
    expect(st.alerts.some((a) => /rfid-1|door-kp/.test(a))).toBe(false);
    await noise.stop();

    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    // The bad checksums and the keys were counted, and said in the log.
    expect(d.output()).toMatch(/RDM6300 checksum wrong/);
  }, 120_000);
});
