import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OpenSerialLink, SerialLinkHandlers } from '../../src/sources/serial/index.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { encodeRdm6300 } from '../../src/sources/serial/rdm6300.js';
import { captureLogger, MemorySink, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

/** A serial device the test drives by hand: open can fail, bytes and unplugs are injected. */
class FakeDevice {
  failOpen: Error | null = new Error('Error: No such file or directory, cannot open /dev/ttyUSB0');
  attempts: number[] = [];
  handlers: SerialLinkHandlers | null = null;
  paused = false;
  closed = 0;

  readonly open: OpenSerialLink = async (_opts, handlers) => {
    this.attempts.push(Date.now());
    if (this.failOpen) throw this.failOpen;
    this.handlers = handlers;
    this.paused = false;
    return {
      pause: () => void (this.paused = true),
      resume: () => void (this.paused = false),
      close: async () => void this.closed++,
    };
  };

  send(text: string): void {
    this.handlers?.onData(Buffer.from(text, 'latin1'));
  }

  unplug(): void {
    const h = this.handlers;
    this.handlers = null;
    this.failOpen = new Error('Error: No such file or directory, cannot open /dev/ttyUSB0');
    h?.onClose(new Error('Reading from COM port (ReadIOCompletion): Input/output error'));
  }
}

const clock = { now: () => Date.now() };
let dir: ReturnType<typeof tempDir>;

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 22, 8, 0, 0) });
  dir = tempDir();
});
afterEach(() => {
  vi.useRealTimers();
  dir.cleanup();
});

function make(over: Record<string, unknown> = {}, presenceCheckMs = 0) {
  const device = new FakeDevice();
  const sink = new MemorySink();
  const log = captureLogger();
  const path = dir.path('ttyUSB0');
  const config = serialConfig({ path, reconnectMinMs: 50, reconnectMaxMs: 400, ...over });
  const source = new SerialSource({ config, sink, logger: log.logger, clock, openLink: device.open, presenceCheckMs });
  return { device, sink, log, source, path };
}

describe('SerialSource with a fake device', () => {
  it('retries a missing device with exponential backoff between the bounds, then reads', async () => {
    const { device, source, sink } = make();
    const t0 = Date.now();
    await source.start();
    expect(source.status()).toMatchObject({ online: false, nextAttemptAt: t0 + 50 });
    expect(source.status().lastError).toMatch(/No such file/);
    await vi.advanceTimersByTimeAsync(2000);
    const delays = device.attempts.map((t, i) => (i === 0 ? 0 : t - (device.attempts[i - 1] as number)));
    expect(delays.slice(0, 8)).toEqual([0, 50, 100, 200, 400, 400, 400, 400]);

    device.failOpen = null;
    await vi.advanceTimersByTimeAsync(400);
    // Open again: the failure is over, not shown as the reader's trouble (a new-user trial saw it for a minute).
    expect(source.status()).toMatchObject({
      online: true,
      nextAttemptAt: null,
      offlineSince: null,
      gaps: [],
      lastError: null,
    });
    device.send('1001,2026-11-22 07:59:00\r\n');
    expect(sink.punches).toEqual([
      { terminal: 'clock1', device: '', biometricCode: '1001', logTime: '2026-11-22 07:59:00' },
    ]);
    await source.stop();
  });

  it('after an unplug records the gap, starts again from the lower bound and closes the gap on reopen', async () => {
    const { device, source } = make();
    device.failOpen = null;
    await source.start();
    const lostAt = Date.now() + 1000;
    await vi.advanceTimersByTimeAsync(1000);
    device.unplug();
    expect(source.status()).toMatchObject({ online: false, offlineSince: lostAt, gaps: [{ from: lostAt, to: null }] });
    const n = device.attempts.length;
    await vi.advanceTimersByTimeAsync(50 + 100 + 200);
    expect(device.attempts.length).toBe(n + 3);
    device.failOpen = null;
    await vi.advanceTimersByTimeAsync(400);
    const st = source.status();
    expect(st).toMatchObject({ online: true, reconnects: 1, gaps: [{ from: lostAt, to: lostAt + 750 }] });
    // Backoff starts over after a successful open.
    device.unplug();
    const m = device.attempts.length;
    await vi.advanceTimersByTimeAsync(50);
    expect(device.attempts.length).toBe(m + 1);
    await source.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(device.attempts.length).toBe(m + 1);
  });

  it('a line cut by the unplug is counted as malformed, not joined to the next line after reopen', async () => {
    const { device, source, sink } = make();
    device.failOpen = null;
    await source.start();
    device.send('1001,2026-11-22 07:5');
    device.unplug();
    device.failOpen = null;
    await vi.advanceTimersByTimeAsync(50);
    device.send('9:00\n1002,2026-11-22 07:59:01\n');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1002']);
    expect(source.status()).toMatchObject({ malformed: 2, accepted: 1 });
    await source.stop();
  });

  it('holds punches while the journal fails, reads on (the device is not paused), and journals them in order once it recovers', async () => {
    const { device, source, sink, log } = make();
    device.failOpen = null;
    await source.start();
    sink.failNext = 2;
    device.send('1001,2026-11-22 07:00:00\n1002,2026-11-22 07:00:01\n');
    // A serial line cannot be read again: the device keeps being read while the journal is busy.
    expect(device.paused).toBe(false);
    expect(source.status()).toMatchObject({
      pendingPunches: 2,
      accepted: 0,
      lastError: 'journal: SQLITE_BUSY: database is locked',
    });
    // Lines arriving meanwhile are queued behind, never ahead.
    device.send('1003,2026-11-22 07:00:02\n');
    expect(source.status().pendingPunches).toBe(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.punches).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1001', '1002', '1003']);
    expect(device.paused).toBe(false);
    expect(source.status()).toMatchObject({ pendingPunches: 0, accepted: 3, lastError: null });
    // Said once (a busy journal is a warning), not at every retry.
    expect(log.entries.filter((e) => e.level >= 40 && /journal/.test(e.msg))).toHaveLength(1);
    await source.stop();
  });

  it('pauses the device only when the memory buffer is full, and resumes once the journal takes the punches', async () => {
    const device = new FakeDevice();
    device.failOpen = null;
    const sink = new MemorySink();
    const config = serialConfig({ path: dir.path('tty'), reconnectMinMs: 50 });
    const source = new SerialSource({
      config,
      sink,
      logger: captureLogger().logger,
      clock,
      openLink: device.open,
      bufferCapacity: 3,
    });
    await source.start();
    sink.failNext = 100;
    device.send('1001,2026-11-22 07:00:00\n1002,2026-11-22 07:00:01\n');
    expect(device.paused).toBe(false);
    device.send('1003,2026-11-22 07:00:02\n');
    expect(device.paused).toBe(true);
    expect(source.status().pendingPunches).toBe(3);
    sink.failNext = 0;
    await vi.advanceTimersByTimeAsync(2000);
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1001', '1002', '1003']);
    expect(device.paused).toBe(false);
    await source.stop();
  });

  it('tells the daemon about a journal failure that retrying cannot mend', async () => {
    const device = new FakeDevice();
    device.failOpen = null;
    const fatal: unknown[] = [];
    const sink = {
      ingest: () => {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      },
    };
    const config = serialConfig({ path: dir.path('tty'), reconnectMinMs: 50 });
    const source = new SerialSource({
      config,
      sink,
      logger: captureLogger().logger,
      clock,
      openLink: device.open,
      onJournalFatal: (e) => fatal.push(e),
    });
    await source.start();
    device.send('1001,2026-11-22 07:00:00\n');
    expect(fatal).toHaveLength(1);
    expect(source.status()).toMatchObject({ pendingPunches: 1, lastError: 'journal: database or disk is full' });
    await source.stop();
  });

  it('rate-limits the log of malformed lines to one line per 10 s with a count', async () => {
    const { device, source, log } = make();
    device.failOpen = null;
    await source.start();
    const noise = () => log.entries.filter((e) => /malformed/.test(e.msg));
    device.send('garbage one\n\x00\x01\x02\n#!!\n');
    expect(noise()).toHaveLength(1);
    expect(noise()[0]).toMatchObject({ count: 1, sample: 'garbage one' });
    device.send('more garbage\n');
    await vi.advanceTimersByTimeAsync(9_000);
    expect(noise()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(noise()).toHaveLength(2);
    expect(noise()[1]).toMatchObject({ count: 3, sample: 'more garbage' });
    expect(source.status().malformed).toBe(4);
    await source.stop();
  });

  it('drops an over-long line without growing memory and reads the next one', async () => {
    const { device, source, sink } = make();
    device.failOpen = null;
    await source.start();
    for (let i = 0; i < 100; i++) device.send('x'.repeat(1000));
    device.send('\n1001,2026-11-22 07:00:00\n');
    expect(sink.punches).toHaveLength(1);
    expect(source.status()).toMatchObject({ malformed: 1, accepted: 1, lines: 2 });
    await source.stop();
  });

  it('closes and reconnects when the device path disappears while reads stay silent', async () => {
    // The check is a real stat() of the path: real timers, a short interval.
    vi.useRealTimers();
    const { device, source, path } = make({}, 50);
    writeFileSync(path, '');
    device.failOpen = null;
    await source.start();
    await new Promise((r) => setTimeout(r, 120));
    expect(source.status().online).toBe(true);
    rmSync(path);
    await waitFor(() => !source.status().online, 20_000, 'the source going offline');
    expect(device.closed).toBe(1);
    expect(source.status().lastError).toMatch(/disappeared/);
    await source.stop();
  });

  it('journals unmapped cards with the card: prefix and lists them as unknown', async () => {
    const map = dir.path('map.csv');
    writeFileSync(map, 'card,biometriccode\n4521000,E-1\n');
    // cardRepeatMs 0: every read a punch, so the journal's own folding of one second shows.
    const { device, source, sink } = make({ format: 'card', codeMap: map, timezone: 'UTC', cardRepeatMs: 0 });
    device.failOpen = null;
    await source.start();
    device.send('\x020004521000\x03\r\n0009999999\r\n0009999999\r\n');
    expect(sink.punches.map((p) => [p.biometricCode, p.logTime])).toEqual([
      ['E-1', '2026-11-22 08:00:00'],
      ['card:0009999999', '2026-11-22 08:00:00'],
    ]);
    // The same card twice in one second is one punch: the second is a duplicate, not lost.
    expect(source.status()).toMatchObject({
      accepted: 3,
      duplicates: 1,
      unknownCards: ['0009999999'],
      unknownCardPunches: 2,
    });
    // Cards added to the map while running are used after the next check (10 s).
    writeFileSync(map, 'card,biometriccode\n4521000,E-1\n9999999,E-9\n');
    await vi.advanceTimersByTimeAsync(10_000);
    device.send('0009999999\n');
    expect(sink.punches.at(-1)?.biometricCode).toBe('E-9');
    await source.stop();
  });
});

describe('SerialSource framing problems (fake device, fake timers)', () => {
  it('a stray line of text that reads as nothing is no framing problem; a line of noise still is (found by a new-user trial)', async () => {
    const { device, source, log } = make({ format: 'card', noFrameAlertSeconds: 60 });
    device.failOpen = null;
    await source.start();
    device.send('garbage line\r\n');
    await vi.advanceTimersByTimeAsync(61_000);
    expect(source.status()).toMatchObject({ malformed: 1, framingProblem: null });
    // Its log line names the terminal once (the JSON had the key twice).
    const line = log.raw.find((l) => l.includes('malformed line from serial terminal'))!;
    expect(line.match(/"terminal":/g)).toHaveLength(1);
    // Noise that keeps coming for noFrameAlertSeconds is one.
    device.send('\x81\xfe\x13\x7f\r\n');
    await vi.advanceTimersByTimeAsync(61_000);
    device.send('\x81\xfe\x13\x7f\r\n');
    expect(source.status().framingProblem?.cause).toMatch(/sends bytes that make no card read or line/);
    await source.stop();
  });

  it('one burst of noise (a reader powering up, a cable plugged in) is no framing problem however long the quiet after it', async () => {
    // The alert said "its reads are lost" from 60 s after a single glitch until the next card was
    // shown, a whole night on a quiet door; the docs promise it when bytes keep arriving for 60 s.
    const { device, source } = make({ format: 'card', noFrameAlertSeconds: 60 });
    device.failOpen = null;
    await source.start();
    device.send('\xff\xfe');
    await vi.advanceTimersByTimeAsync(50);
    device.send('\x81\xfe\x13\x7f\r\n');
    await vi.advanceTimersByTimeAsync(8 * 3600_000);
    expect(source.status()).toMatchObject({ malformed: 1, framingProblem: null });
    // Bytes again after the quiet: still no read, now for longer than 60 s: the alert.
    device.send('\x81\xfe\x13\x7f\r\n');
    expect(source.status().framingProblem?.cause).toMatch(/sends bytes that make no card read or line/);
    await source.stop();
  });

  it('bytes that make no read for noFrameAlertSeconds are a problem naming the terminal and the framing; a read clears it', async () => {
    const { device, source, sink } = make({ format: 'card', framing: 'line', noFrameAlertSeconds: 60 });
    device.failOpen = null;
    await source.start();
    // An RDM6300 on framing: line: no line end ever comes.
    const frame = '\x021A0044FC28' + '8A' + '\x03';
    device.send(frame);
    await vi.advanceTimersByTimeAsync(59_000);
    device.send(frame);
    expect(source.status().framingProblem).toBeNull();
    // Bytes that keep arriving for 60 s: the next read 60 s after the first.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(source.status().framingProblem).toBeNull();
    device.send(frame);
    const p = source.status().framingProblem!;
    expect(p.cause).toMatch(
      /^clock1 sends bytes that make no card read or line \(42 bytes since .*; framing: line\): its reads are lost$/,
    );
    expect(p.fix).toMatch(/^set framing: auto for it/);
    // A line end makes the held bytes one malformed line: still no read. A card line is one.
    device.send('\r\n');
    expect(source.status().framingProblem).not.toBeNull();
    device.send('0004521000\r\n');
    expect(source.status().framingProblem).toBeNull();
    expect(sink.punches).toHaveLength(1);
    await source.stop();
  });

  it('an EM-18 on the default framing: the alert names framing: length with frameBytes: 12', async () => {
    const { device, source } = make({ format: 'card', noFrameAlertSeconds: 60 });
    device.failOpen = null;
    await source.start();
    // 12 hex digits a read, no STX, ETX or line end: nothing ends a read on framing: auto.
    for (let i = 0; i < 7; i++) {
      device.send('1A0044FC288A');
      await vi.advanceTimersByTimeAsync(10_000);
    }
    const p = source.status().framingProblem!;
    expect(p.fix).toMatch(
      /^set framing: gap for it .*; an EM-18-type reader \(12 hex digits a read\): framing: length with frameBytes: 12;/,
    );
    await source.stop();
  });

  it('a read longer than the bound is a problem at once, not only a warning', async () => {
    const { device, source } = make({ format: 'card' });
    device.failOpen = null;
    await source.start();
    device.send('7'.repeat(3000));
    const st = source.status();
    expect(st).toMatchObject({ overflows: 1, malformed: 1 });
    expect(st.framingProblem?.cause).toMatch(/1 read longer than 1024 bytes without an end; framing: auto/);
    expect(st.framingProblem?.fix).toMatch(/framing: gap/);
    device.send('\n0004521000\n');
    expect(source.status().framingProblem).toBeNull();
    await source.stop();
  });

  it('RDM6300 frames: good ones are punches with the printed number, bad checksums counted; keys counted, never glued', async () => {
    const { device, source, sink } = make({ format: 'card' });
    device.failOpen = null;
    await source.start();
    // 1A 0044FC28: checksum 1A^00^44^FC^28 = 8A.
    device.send('\x021A0044FC288A\x03\x021A0044FC2800\x03');
    device.send('3');
    await vi.advanceTimersByTimeAsync(100);
    device.send('0000123478\r\n');
    // A frame of the RDM6300's length garbled by line noise is no card (a new-user trial saw it delivered).
    device.send('\x02ZZ000000QQ10\x03');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual([String(0x0044fc28).padStart(10, '0'), '0000123478']);
    expect(source.status()).toMatchObject({ badChecksums: 1, keypadKeys: 1, malformed: 2, accepted: 2 });
    await source.stop();
  });
});

describe('SerialSource: a tag held on the reader (fake device, fake timers)', () => {
  it('frames of the card still on the reader are one read: the window slides, another card or a reopen ends it', async () => {
    const { device, source, sink } = make({ format: 'card', timezone: 'UTC' });
    device.failOpen = null;
    await source.start();
    // An RDM6300 sends the tag's frame about every 65 ms while it stays in the field: 3 s of it.
    const frame = (data: string) => encodeRdm6300(data).toLowerCase();
    for (let i = 0; i < 46; i++) {
      device.send(frame('1A0044FC28'));
      await vi.advanceTimersByTimeAsync(65);
    }
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0004521000']);
    expect(source.status()).toMatchObject({ accepted: 1, cardRepeats: 45, malformed: 0 });
    // Another tag at once, then the first again at once: each a new read.
    device.send(frame('1A0044FC29') + frame('1A0044FC28'));
    // The first tag taken away for a second and shown again: a new read (a later second).
    await vi.advanceTimersByTimeAsync(1000);
    device.send(frame('1A0044FC28'));
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0004521000', '0004521001', '0004521000', '0004521000']);
    // A tag held across an unplug: the first frame after the reopen is a read again.
    device.unplug();
    device.failOpen = null;
    await vi.advanceTimersByTimeAsync(100);
    device.send(frame('1A0044FC28'));
    expect(source.status()).toMatchObject({ accepted: 5, cardRepeats: 45, reconnects: 1 });
    await source.stop();
  });

  it('cardRepeatMs: 0 makes every frame a read; lines of a reader repeat alike', async () => {
    const { device, source } = make({ format: 'card', cardRepeatMs: 0, timezone: 'UTC' });
    device.failOpen = null;
    await source.start();
    device.send('0004521000\r0004521000\r');
    expect(source.status()).toMatchObject({ accepted: 2, duplicates: 1, cardRepeats: 0 });
    await source.stop();
    const b = make({ format: 'card', timezone: 'UTC' });
    b.device.failOpen = null;
    await b.source.start();
    // CR only, as some readers end lines: the second read 200 ms later is the card still there.
    b.device.send('0004521000\r');
    await vi.advanceTimersByTimeAsync(200);
    b.device.send('0004521000\r');
    expect(b.source.status()).toMatchObject({ accepted: 1, cardRepeats: 1 });
    await b.source.stop();
  });

  it('EM4100 readers alike: ID-12 frames (STX, data, checksum, CR LF, ETX), lower-case hex, 10-digit decimal lines ending in CR', async () => {
    const { device, source, sink } = make({ format: 'card', cardRepeatMs: 0 });
    device.failOpen = null;
    await source.start();
    // The EM-18 datasheet's tag: 4500C5D1E9, checksum B8, printed 0012964329.
    device.send('\x024500C5D1E9B8\r\n\x03');
    // Lower-case digits back to back with a bad frame: the good one is read, the bad one skipped.
    device.send(encodeRdm6300('4500C5D1EA').toLowerCase() + '\x024500C5D1E9B9\x03');
    device.send('0012964331\r');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0012964329', '0012964330', '0012964331']);
    expect(source.status()).toMatchObject({ badChecksums: 1, malformed: 1 });
    await source.stop();
  });

  it('keypadStates: a key chooses the punch state of the card that follows within 10 s; other keys choose nothing', async () => {
    const { device, source, sink } = make({ format: 'card', timezone: 'UTC', keypadStates: { '1': 0, '2': 1 } });
    device.failOpen = null;
    await source.start();
    const tap = async (key: string | null, card: string, waitMs = 100) => {
      if (key !== null) device.send(key);
      await vi.advanceTimersByTimeAsync(waitMs);
      device.send(`${card}\r\n`);
      await vi.advanceTimersByTimeAsync(1500);
    };
    await tap('2', '0000123478'); // check-out
    await tap('1', '0000123479'); // check-in
    await tap('9', '0000123480'); // a key that chooses nothing
    await tap(null, '0000123481'); // no key
    await tap('2', '0000123482', 11_000); // the key pressed long before the card
    expect(sink.punches.map((p) => [p.biometricCode, p.punchState])).toEqual([
      ['0000123478', 1],
      ['0000123479', 0],
      ['0000123480', undefined],
      ['0000123481', undefined],
      ['0000123482', undefined],
    ]);
    expect(source.status()).toMatchObject({ keypadKeys: 4, accepted: 5 });
    await source.stop();
  });

  it('8-bit burst keypad keys (0xE1 for 1, 0x5A for *, 0x4B for #) are keys, never noise or part of the card', async () => {
    const { device, source, sink } = make({ format: 'card' });
    device.failOpen = null;
    await source.start();
    for (const key of ['\xe1', '\x5a', '\x4b', '\xf0']) {
      device.send(key);
      await vi.advanceTimersByTimeAsync(100);
      device.send('0000123478\r\n');
      await vi.advanceTimersByTimeAsync(1500);
    }
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(Array(4).fill('0000123478'));
    expect(source.status()).toMatchObject({ keypadKeys: 4, malformed: 0 });
    // A high byte that is no key burst (0xE2: its high nibble is not the low one's complement) is noise.
    device.send('\xe2');
    await vi.advanceTimersByTimeAsync(100);
    expect(source.status()).toMatchObject({ keypadKeys: 4, malformed: 1 });
    await source.stop();
  });
});

describe('SerialSource fixed-length and silence framings (fake device, fake timers)', () => {
  it('framing length: whole records are cards, a partial one before a silence is dropped, never a code', async () => {
    const { device, source, sink } = make({ format: 'card', framing: 'length', frameBytes: 12 });
    device.failOpen = null;
    await source.start();
    device.send('0004521000\r\n0004521001\r\n00045');
    await vi.advanceTimersByTimeAsync(100);
    device.send('0004521002\r\n');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0004521000', '0004521001', '0004521002']);
    expect(source.status().malformed).toBe(1);
    await source.stop();
  });

  it('framing gap: a read is what comes between silences', async () => {
    const { device, source, sink } = make({ format: 'card', framing: 'gap', gapMs: 50 });
    device.failOpen = null;
    await source.start();
    device.send('00045');
    device.send('21000');
    await vi.advanceTimersByTimeAsync(60);
    device.send('0004521001');
    await vi.advanceTimersByTimeAsync(60);
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['0004521000', '0004521001']);
    await source.stop();
  });
});
