import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyPair } from '../../src/sim/serial/index.js';
import { createLineParser, SerialSource } from '../../src/sources/serial/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger, MemorySink, requireSocat, serialConfig } from './helpers.js';

/**
 * 125 kHz ID readers print a card in the output format set on them, and some of those formats
 * hold a comma. A reader maker's datasheet (zgznk.com, "09A-EMID-6H10D id card reader") lists,
 * for the card 01026F6C3A: "004,335,823,930" (10H to 12D), "0040856634" (8H to 10D),
 * "07,302,202" (6H to 8D), "111,27706" (2H + 4H: the Wiegand 26 facility code and card number,
 * as EM tags also print it beside the 10 digits) and "00623,27706" (4H + 4H). Every one of those
 * with a comma was a malformed line: the reader could not be used in its format. Now a facility
 * and a card are the number they make (111 x 65536 + 27706 = 0007302202, what cardNumber:
 * wiegand26 and a Wiegand-to-RS232 converter give the same tag).
 * The lines here are rebuilt from those published values, not copied from a capture.
 */
const at = Date.UTC(2026, 10, 22, 7, 0, 0);
const card = (over: Record<string, unknown> = {}) =>
  createLineParser(serialConfig({ path: '/dev/null', format: 'card', timezone: 'UTC', ...over }), { now: () => at });
const codes = (parse: ReturnType<typeof card>, lines: string[]) =>
  lines.map((l) => parse(l)).map((p) => (p.kind === 'punch' ? p.code : p.kind));

describe('card readers whose output format holds a comma', () => {
  beforeAll(requireSocat);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('digit groups are one number, facility,card the number they make; other commas stay malformed', () => {
    const parse = card();
    expect(
      codes(parse, ['004,335,823,930', '07,302,202', '0040856634', '111,27706', '00623,27706', 'Card: 111,27706']),
    ).toEqual(['004335823930', '07302202', '0040856634', '0007302202', '0040856634', '0007302202']);
    // Not a card in any published format (a facility of 3 digits is one byte, a card two): never read as one.
    expect(
      codes(parse, ['1,2', '111,2770', '12,34,56', '111,27706,5', ',111', '111,', '256,00001', '111,65536']),
    ).toEqual(Array(8).fill('malformed'));
    // A site's own pattern gives the same cards.
    expect(codes(card({ pattern: '^CARD (?<code>\\S+)$' }), ['CARD 07,302,202', 'CARD 111,27706'])).toEqual([
      '07302202',
      '0007302202',
    ]);
  });

  it('a UID printed as hex bytes with a blank or colon between them is the card those bytes make', () => {
    // MFRC522 (13.56 MHz) reader sketches print the UID byte by byte: the library's examples as
    // "Card UID:" then " 0" or " " before each byte in hex ("Card UID: 04 A1 B2 C3"), others with
    // a colon ("%02X:"). A UID is 4, 7 or 10 bytes (ISO 14443 single, double, triple size).
    const parse = card();
    expect(
      codes(parse, ['Card UID: 04 A1 B2 C3', '04 a1 b2 c3', '04:A1:B2:C3', 'UID: 04 A1 B2 C3 D4 E5 F6', '04A1B2C3']),
    ).toEqual(['04A1B2C3', '04a1b2c3', '04A1B2C3', '04A1B2C3D4E5F6', '04A1B2C3']);
    // Not a UID: another count of bytes, mixed separators, a byte of one digit, the sketch's other lines.
    expect(
      codes(parse, [
        '04 A1 B2',
        '04 A1 B2 C3 D4',
        '04 A1:B2 C3',
        '4 A1 B2 C3',
        'Card SAK: 08',
        'PICC type: MIFARE 1KB',
      ]),
    ).toEqual(Array(6).fill('malformed'));
  });

  it('a break on the line (read as a NUL byte) is said as one, not as control characters', () => {
    // The serialport binding sets c_iflag to IGNPAR alone: no IGNBRK, BRKINT or PARMRK, so a break
    // reads as one NUL byte (termios(3)). A reader powering up or a cable plugged in sends one.
    for (const parse of [card(), card({ format: 'regex' })])
      expect(parse('\x00')).toEqual({
        kind: 'malformed',
        reason: 'NUL bytes only: a break on the line (a reader powering up, a cable plugged in or loose) reads so',
      });
    expect(card()('\x01\x00')).toEqual({ kind: 'malformed', reason: 'control characters only' });
  });

  it('through a pty: journalled under the mapped code, the map written either way', async () => {
    const dir = tempDir('punchgate-grouped-');
    cleanups.push(() => dir.cleanup());
    writeFileSync(dir.path('cards.csv'), 'card,biometriccode\n"111,27706",1042\n0040856634,1043\n0012964329,1044\n');
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const log = captureLogger();
    const config = serialConfig({
      path: pair.devicePath,
      format: 'card',
      codeMap: dir.path('cards.csv'),
      cardRepeatMs: 0,
    });
    const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
    cleanups.push(() => source.stop());
    await source.start();
    const fd = openSync(pair.peerPath, 'w');
    // Mapped as the reader prints them, as the tag's 10 digits (tag "0012964329 197,53737"), in
    // another format (4H + 4H of the card mapped as 8H to 10D); then an unknown card and noise.
    writeSync(fd, '111,27706\r\n197,53737\r\n00623,27706\r\n004,335,823,930\r\n1,2\r\n');
    closeSync(fd);
    await waitFor(() => source.status().lines === 5, 5000, 'five lines read');
    await source.stop();
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1042', '1044', '1043', 'card:004335823930']);
    expect(source.status()).toMatchObject({ accepted: 4, malformed: 1 });
    expect(log.entries.find((e) => e.msg === 'malformed line from serial terminal')).toMatchObject({ sample: '1,2' });
  });
});
