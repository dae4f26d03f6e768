import { closeSync, openSync, writeSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyPair, startSerialSim } from '../../src/sim/serial/index.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { encodeRdm6300 } from '../../src/sources/serial/rdm6300.js';
import { encodeCardPacket } from '../../src/sources/serial/card-packet.js';
import { captureLogger, MemorySink, requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Two 125 kHz reader modules whose reads are no printed frame, on a real pseudo-terminal: an
 * EM-18 (the RDM6300's 12 hex digits with no STX, ETX or line end, read with `framing: gap`) and a
 * 7941E (binary packets whose bytes hold ETX, CR and LF, read with the default framing). Each good
 * read once, as the number printed on the tag; each read with a wrong checksum skipped and said.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function readerOn(over: Record<string, unknown>) {
  const dir = tempDir();
  const pair = await createPtyPair(dir.path('tty'));
  const sink = new MemorySink();
  const log = captureLogger();
  const config = serialConfig({ path: pair.devicePath, format: 'card', ...over });
  const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
  cleanups.push(
    dir.cleanup,
    () => pair.close(),
    () => source.stop(),
  );
  await source.start();
  return { pair, sink, log, source };
}

describe('card reader modules that frame nothing or send binary packets', () => {
  beforeAll(requireSocat);

  it.each([
    ['em18', { framing: 'gap' }],
    ['em18', { framing: 'length', frameBytes: 12 }],
    ['7941e', {}],
  ] as const)('%s: every card once as printed on the tag, bad checksums skipped', async (reader, over) => {
    const { pair, sink, source, log } = await readerOn(over);
    const cards: string[] = [];
    const bad: string[] = [];
    // 0x0A0D0203 puts LF, CR, STX and ETX in the card's own bytes.
    // Twelve cards: the journal folds one card's reads of one second (these come milliseconds apart).
    const codes = [
      '0168624643',
      '0004521000',
      '0012964329',
      '0000000010',
      '0004521001',
      '0000003338',
      '0000000013',
      '0000656387',
      '4294967295',
      '0000000000',
      '0033752069',
      '0004521002',
    ];
    const r = await startSerialSim({
      path: pair.peerPath,
      format: 'card',
      reader,
      rate: 0,
      count: 12,
      noise: 0.5,
      seed: 5,
      codes,
      onLine: (l, kind) => (kind === 'punch' ? cards : bad).push(l),
    }).done;
    expect(r.punches).toBe(12);
    expect(bad.length).toBeGreaterThan(2);
    await waitFor(() => source.status().lines === 12 + bad.length, 10_000, 'every read');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(cards);
    expect(cards).toEqual(codes);
    expect(source.status()).toMatchObject({ accepted: 12, malformed: bad.length, badChecksums: bad.length });
    expect(log.raw.join('')).toMatch(/checksum wrong|BCC wrong/);
  });

  it('em18 on framing gap: reads that arrive together (a busy box) are each a card, never one long card', async () => {
    const { pair, sink, source } = await readerOn({ framing: 'gap' });
    const read = (data: string, bad?: boolean) => encodeRdm6300(data, { badChecksum: bad }).slice(1, -1);
    const fd = openSync(pair.peerPath, 'w');
    // One write: however the box reads it, no pause is left between these reads.
    writeSync(fd, read('1A0A15A424') + read('1A0A0F0405') + read('1A00000001', true) + read('1A00000002'));
    closeSync(fd);
    await waitFor(() => source.status().lines === 4, 10_000, 'four reads');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0169190436', '0168756229', '0000000002']);
    expect(source.status()).toMatchObject({ accepted: 3, malformed: 1, badChecksums: 1 });
  });

  it.each([
    ['unset', ['6B3D12D6', '0A0D0203']],
    ['hex', ['6B3D12D6', '0A0D0203']],
    ['printed', ['1799164630', '0168624643']],
    ['wiegand26', ['0004002518', '0000852483']],
  ] as const)('7941e: a MIFARE card numbered as cardNumber %s says', async (cardNumber, expected) => {
    const { pair, sink, source } = await readerOn(cardNumber === 'unset' ? {} : { cardNumber });
    const fd = openSync(pair.peerPath, 'w');
    // The module manual's card, then one whose UID holds LF, CR, STX and ETX.
    writeSync(fd, encodeCardPacket(0x01, '6B3D12D6') + encodeCardPacket(0x01, '0A0D0203'), null, 'latin1');
    closeSync(fd);
    await waitFor(() => source.status().lines === 2, 10_000, 'two reads');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(expected);
  });

  it('framing gap: a box stalled in the middle of a read still reads the card whole, never its halves as cards', async () => {
    const { pair, sink, source } = await readerOn({ framing: 'gap', gapMs: 100 });
    const fd = openSync(pair.peerPath, 'w');
    cleanups.push(() => closeSync(fd));
    // A reader that prints 10 digits with no line end: five reads, each ended by a silence.
    const cards = ['0004521000', '0004521001', '0004521002', '0004521003', '0004521004'];
    for (const [i, card] of cards.entries()) {
      writeSync(fd, card);
      await waitFor(() => source.status().lines === i + 1, 10_000, `read ${i + 1}`);
    }
    // Half a card, read by the box; then the box is busy (a disk sync, a large import: simulated
    // here by holding the event loop, which is the fault itself, not a wait) while the rest comes.
    writeSync(fd, '00045');
    await waitFor(() => source.status().unframedBytes === 5, 10_000, 'the first half read');
    writeSync(fd, '21005');
    const busyUntil = Date.now() + 600;
    while (Date.now() < busyUntil);
    await waitFor(() => source.status().lines === 6, 10_000, 'the sixth read');
    // Whatever comes next is read as usual.
    writeSync(fd, '0004521006');
    await waitFor(() => source.status().lines === 7, 10_000, 'the seventh read');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual([...cards, '0004521005', '0004521006']);
    expect(source.status()).toMatchObject({ accepted: 7, malformed: 0 });
  });

  it('framing gap: a reader printing a 12- or 24-digit decimal number with no line end keeps its number (no EM-18 checksum asked of it)', async () => {
    const { pair, sink, source } = await readerOn({ framing: 'gap' });
    const fd = openSync(pair.peerPath, 'w');
    writeSync(fd, '123456789012');
    await waitFor(() => source.status().lines === 1, 10_000, 'the first read');
    writeSync(fd, '123456789012345678901234');
    closeSync(fd);
    await waitFor(() => source.status().lines === 2, 10_000, 'the second read');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['123456789012', '123456789012345678901234']);
    expect(source.status()).toMatchObject({ accepted: 2, badChecksums: 0 });
  });
});
