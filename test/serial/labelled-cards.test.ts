import { closeSync, openSync, writeSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyPair } from '../../src/sim/serial/index.js';
import { createLineParser, SerialSource } from '../../src/sources/serial/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger, MemorySink, requireSocat, serialConfig } from './helpers.js';

/**
 * Readers that print a label before the card, as USB-serial readers, Wiegand-to-serial
 * converters and reader sketches do ("W26:", "EM4100: ", "Card: ", "ID=", "Tag = " from the
 * Arduino Wiegand examples; "Wiegand HEX = 1E256, DECIMAL = 123478, Type W26" from the
 * monkeyboard library's example). The label is never part of the code.
 */
const at = Date.UTC(2026, 10, 22, 7, 0, 0);
const card = (over: Record<string, unknown> = {}) =>
  createLineParser(serialConfig({ path: '/dev/null', format: 'card', timezone: 'UTC', ...over }), { now: () => at });

describe('card readers that print a label before the card', () => {
  beforeAll(requireSocat);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('the default takes the card after the usual labels, and nothing after any other', () => {
    const parse = card();
    const codes = (lines: string[]) => lines.map((l) => parse(l)).map((p) => (p.kind === 'punch' ? p.code : p.kind));
    expect(
      codes(['W26:0012345678', 'EM4100: 0A00123456', 'Card: 12345', 'ID=4521234', 'tag = 1E256', 'UID: 04A1B2C3']),
    ).toEqual(['0012345678', '0A00123456', '12345', '4521234', '1E256', '04A1B2C3']);
    // A status line is no card 3; several numbers on a line need a pattern.
    expect(codes(['Error: 3', 'RFID reader ready', 'Wiegand HEX = 1E256, DECIMAL = 123478, Type W26'])).toEqual([
      'malformed',
      'malformed',
      'malformed',
    ]);
    const wiegand = card({ pattern: 'DECIMAL = (?<code>\\d+),' });
    expect(wiegand('Wiegand HEX = 1E256, DECIMAL = 123478, Type W26')).toMatchObject({ kind: 'punch', code: '123478' });
    expect(wiegand('W26:0012345678')).toEqual({ kind: 'malformed', reason: 'does not match the pattern' });
  });

  it('through a pty: labelled cards journalled as cards, other lines logged with their text', async () => {
    const dir = tempDir('punchgate-labels-');
    cleanups.push(() => dir.cleanup());
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const log = captureLogger();
    const config = serialConfig({ path: pair.devicePath, format: 'card' });
    const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
    cleanups.push(() => source.stop());
    await source.start();
    const fd = openSync(pair.peerPath, 'w');
    writeSync(fd, 'W26:0012345678\r\nEM4100: 0A00123456\r\nStatus: 7\r\nCard: 12345\r\nID=4521234\r\n');
    closeSync(fd);
    await waitFor(() => source.status().lines === 5, 5000, 'five lines read');
    await source.stop();
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0012345678', '0A00123456', '12345', '4521234']);
    expect(source.status()).toMatchObject({ accepted: 4, malformed: 1 });
    // The line that is no card is in the log with its text, never a punch under its label.
    expect(JSON.stringify(log.entries)).toContain('Status: 7');
  });
  /**
   * Reader boards that print the label and the card with a blank between them, no `:`: a
   * published Arduino door controller behind a Parallax reader prints `CARD ` and the 10 characters
   * of the tag (github.com/shawnwilson "rfid door controller", 2013), beside its own status lines
   * (`DOOR LOCKED`). Every card of such a board was a malformed line, lost. Our own cards below.
   */
  it('through a pty: a label followed by a blank is read as with a colon; other lines stay malformed', async () => {
    const dir = tempDir('punchgate-labels-');
    cleanups.push(() => dir.cleanup());
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const log = captureLogger();
    const config = serialConfig({ path: pair.devicePath, format: 'card' });
    const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
    cleanups.push(() => source.stop());
    await source.start();
    const fd = openSync(pair.peerPath, 'w');
    const lines = [
      'Door controller initialized.',
      'CARD 0415AB3C7D',
      'DOOR UNLOCKED',
      'W26 0012345678',
      'Card No. 0004521234',
      'EM4100 0A00123456',
      'Card 3 Invalid!!!',
      'Error 3 4',
    ];
    writeSync(fd, lines.map((l) => `${l}\r\n`).join(''));
    // The Parallax reader itself, on the line: LF, the 10 characters, CR.
    writeSync(fd, '\n0415AB3C7E\r');
    closeSync(fd);
    await waitFor(() => source.status().lines === lines.length + 1, 5000, 'every line read');
    await source.stop();
    expect(sink.punches.map((p) => p.biometricCode)).toEqual([
      '0415AB3C7D',
      '0012345678',
      '0004521234',
      '0A00123456',
      '0415AB3C7E',
    ]);
    expect(source.status()).toMatchObject({ accepted: 5, malformed: 4 });
    // The log says the first of them with its text (then a count, at most one line per 10 s).
    expect(JSON.stringify(log.entries)).toContain('Door controller initialized.');
  });
  /**
   * Magnetic-stripe badge readers send a badge's track 2 between its sentinels: `;`, the digits,
   * `?` (ID TECH Omni RS-232 manual, appendix B: `<SS2><T2 data><ES><CR>`), framed by STX ... CR
   * ETX when the switches say so (MagTek MT-211232 RS-232 manual, figure 3-1). Each badge was a
   * malformed line, lost; a 10-digit badge in STX/ETX was even taken for an RDM6300 frame's noise.
   * A bad read (`;E?`) and track 1 (`%B...^NAME^...?`) are no badge. Our own badges below.
   */
  it("through a pty: a mag-stripe badge's track 2 (;digits?) is the card", async () => {
    const dir = tempDir('punchgate-labels-');
    cleanups.push(() => dir.cleanup());
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const log = captureLogger();
    const config = serialConfig({ path: pair.devicePath, format: 'card' });
    const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
    cleanups.push(() => source.stop());
    await source.start();
    const fd = openSync(pair.peerPath, 'w');
    writeSync(fd, ';0012345678?\r');
    writeSync(fd, '\x02;0004521234?\r\x03');
    writeSync(fd, ';E?\r');
    writeSync(fd, '%B0004521235^OKAFOR/RUTH^?\r');
    writeSync(fd, ';00451?\r\n');
    closeSync(fd);
    await waitFor(() => source.status().lines === 5, 5000, 'five reads');
    await source.stop();
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0012345678', '0004521234', '00451']);
    expect(source.status()).toMatchObject({ accepted: 3, malformed: 2 });
  });
});
