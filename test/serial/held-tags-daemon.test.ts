import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startSerialSim } from '../../src/sim/serial/index.js';
import { HELD_FRAMES } from '../../src/sim/serial/readers.js';
import { waitFor } from '../helpers/wait.js';
import { requireSocat } from './helpers.js';
import { startReadersDaemon } from './readers-daemon-stack.js';

/**
 * Readers as they behave on a real desk, through the real daemon (dist/punchgate.js as a child
 * process) to the HRMS simulator, on the default framing:
 * - an RDM6300 whose tags are held on the antenna: the module sends each tag's frame every 65 ms
 *   while it stays in the field (20 frames, 1.3 s, lower-case hex digits, back to back with no
 *   line end). Each tag is one punch at the HRMS, not one per second it was held;
 * - a Wiegand-to-RS232 converter behind a keypad that sends 8-bit bursts (key 1 is the byte 0xE1,
 *   `*` 0x5A, `#` 0x4B, passed on as they are): each key is a key, not line noise, and never part
 *   of the card that follows;
 * - an RDM6300 with `cardNumber: wiegand26`: the number a Wiegand 26 reader gives the same tag;
 * - a converter whose keypad has check-in and check-out keys (`keypadStates`): the key pressed
 *   before a card is that punch's state.
 * Nothing here hangs on how fast the daemon reads: 8-bit keys are cut off the card by their own
 * byte (a loaded run once read `*` and the card after it as one code, "Z0000123479"), and held
 * tags by their frames. A 4-bit key ("3" before "0000200001") can only be told from a card's
 * first digit by the pause between them, so the keys that choose states are 8-bit ones here.
 */
describe('held tags and 8-bit keypad keys through the daemon', () => {
  beforeAll(requireSocat);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a tag held on an RDM6300 is one punch; 8-bit keypad keys are keys; Wiegand 26 numbers; keys choosing the state', async () => {
    const {
      pairs: [rdm, kp8, w26, kps],
      stack,
      d,
    } = await startReadersDaemon(cleanups, [
      { name: 'rfid-held' },
      { name: 'door-kp8' },
      // Cards enrolled on Wiegand 26 readers: the number such a reader gives the tag.
      { name: 'rfid-w26', cardNumber: 'wiegand26' },
      // Keys that choose check-in (3) and check-out (*, the 8-bit burst 0x5A, a printable "Z").
      { name: 'door-kps', keypadStates: { '3': 0, '*': 1 } },
    ]);

    const held: string[] = [];
    const [r1, r2, r3, r4] = await Promise.all([
      startSerialSim({
        path: rdm.peerPath,
        format: 'card',
        reader: 'rdm6300-held',
        rate: 0,
        count: 3,
        onLine: (l, kind) => kind === 'punch' && held.push(l),
      }).done,
      startSerialSim({
        path: kp8.peerPath,
        format: 'card',
        reader: 'wiegand-keypad-8bit',
        rate: 0,
        count: 6,
        codes: ['0000123478', '0000123479', '0000123480', '0000123481', '0000123482', '0000123483'],
      }).done,
      // Tag 1A 12345678: printed 0305419896; a Wiegand 26 reader gives it 0003430008.
      startSerialSim({
        path: w26.peerPath,
        format: 'card',
        reader: 'rdm6300',
        rate: 0,
        count: 1,
        codes: ['0305419896'],
      }).done,
      // Keys 3, * (0x5A) and 5, each before its card.
      startSerialSim({
        path: kps.peerPath,
        format: 'card',
        reader: 'wiegand-keypad-8bit',
        rate: 0,
        count: 3,
        codes: ['0000200001', '0000200002', '0000200003'],
      }).done,
    ]);
    expect(r3.punches).toBe(1);
    expect(r4).toMatchObject({ punches: 3, keys: 3 });
    // Each tag sent its frame 20 times over 1.3 s: more than one second of repeats per tag.
    expect(r1).toMatchObject({ punches: 3, repeats: 3 * (HELD_FRAMES - 1) });
    expect(r2).toMatchObject({ punches: 6, keys: 6 });

    const delivered = () => stack.hrms.attendance().map((p) => p.biometriccode);
    const expected = [
      ...held,
      ...['0000123478', '0000123479', '0000123480', '0000123481', '0000123482', '0000123483'],
      '0003430008',
      ...['0000200001', '0000200002', '0000200003'],
    ];
    await waitFor(() => delivered().length >= expected.length, 30_000, 'the cards delivered');
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    // Every read the daemon made is in the journal now: one punch per tag, none per repeat.
    const db = new Database(stack.tmp.path('journal.db'), { readonly: true });
    const journalled = db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number };
    const states = db
      .prepare(
        "SELECT biometric_code AS code, punch_state AS state FROM punches WHERE terminal = 'door-kps' ORDER BY id",
      )
      .all();
    db.close();
    expect(journalled.n).toBe(expected.length);
    // Key 3 chose check-in (0), * check-out (1); key 5 is in no map and chose nothing.
    expect(states).toEqual([
      { code: '0000200001', state: 0 },
      { code: '0000200002', state: 1 },
      { code: '0000200003', state: null },
    ]);
    expect(delivered().sort()).toEqual(expected.sort());
    // The 8-bit keys (0xE1, 0xD2, ...) were keys: no malformed line from that reader.
    expect(d.output()).not.toMatch(/malformed lines? from serial terminal/);
  }, 120_000);
});
