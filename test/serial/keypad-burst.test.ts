import { closeSync, openSync, writeSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyPair } from '../../src/sim/serial/index.js';
import { FrameSplitter } from '../../src/sources/serial/frame-splitter.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger, MemorySink, requireSocat, serialConfig } from './helpers.js';

/** The 8-bit burst of each key in key order (0-9, `*`, `#`): key in the low nibble, complement high. */
const BURSTS = Array.from({ length: 12 }, (_, k) => String.fromCharCode(((~k & 0xf) << 4) | k));
const KEYS = '0123456789*#';

const texts = (s: FrameSplitter, text: string) =>
  s.push(Buffer.from(text, 'latin1'), 0).frames.map((f) => `${f.end}:${f.text}`);

describe('8-bit keypad keys glued to the card after them in one read', () => {
  beforeAll(requireSocat);
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('splits a burst key off the card by the key byte itself, never by length', () => {
    const s = new FrameSplitter({ framing: 'auto', maxBytes: 64, gapMs: 30, keypadMaxBytes: 1, burstKeys: true });
    // `*` (0x5A, "Z") and card 0000123479 in one read: what a loaded daemon saw as "Z0000123479".
    expect(texts(s, 'Z0000123479\r\n')).toEqual(['key:Z', 'line:0000123479']);
    // Key 1 (0xE1) and two keys in a row.
    expect(texts(s, '\xe10000123480\r\nKx0000123481\r\n')).toEqual([
      'key:\xe1',
      'line:0000123480',
      'key:K',
      'key:x',
      'line:0000123481',
    ]);
    // An 11-digit card, and a label that begins with a printable burst byte, stay whole.
    expect(texts(s, '30000123478\r\nid=0000123482\r\n')).toEqual(['line:30000123478', 'line:id=0000123482']);
  });

  it('every key and its card written in one write to the pty: 12 keys, 12 right cards', async () => {
    const dir = tempDir('punchgate-burst-');
    cleanups.push(() => dir.cleanup());
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const log = captureLogger();
    const config = serialConfig({ path: pair.devicePath, format: 'card', keypadStates: { '*': 1, '#': 0 } });
    const source = new SerialSource({ config, sink, logger: log.logger, clock: { now: () => Date.now() } });
    cleanups.push(() => source.stop());
    await source.start();
    const cards = KEYS.split('').map((_, k) => String(123470 + k).padStart(10, '0'));
    const fd = openSync(pair.peerPath, 'w');
    // One write: however fast or slow the daemon reads, key and card arrive together.
    writeSync(fd, Buffer.from(BURSTS.map((b, k) => `${b}${cards[k]}\r\n`).join(''), 'latin1'));
    closeSync(fd);
    await waitFor(() => sink.punches.length === 12, 5000, '12 cards');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(cards);
    // `*` chose check-out for its card, `#` check-in: the keys were read as keys, by name.
    expect(sink.punches.map((p) => p.punchState)).toEqual([...Array(10).fill(undefined), 1, 0]);
    expect(source.status()).toMatchObject({ accepted: 12, malformed: 0, keypadKeys: 12 });
  });
});
