import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyPair, startSerialSim, type PtyPair } from '../../src/sim/serial/index.js';
import {
  openSerialPort,
  SerialSource,
  UNKNOWN_CARD_PREFIX,
  type OpenSerialLink,
} from '../../src/sources/serial/index.js';
import { wallClockAt } from '../../src/punch.js';
import { captureLogger, MemorySink, requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Reads through the real serialport device, counting the chunks each read delivers. */
function countingOpen(chunks: Buffer[]): OpenSerialLink {
  return (opts, handlers) =>
    openSerialPort(opts, { ...handlers, onData: (c) => (chunks.push(Buffer.from(c)), handlers.onData(c)) });
}

async function setup(over: Record<string, unknown> = {}, clock = { now: () => Date.now() }) {
  const dir = tempDir();
  const pair: PtyPair = await createPtyPair(dir.path('tty'));
  const sink = new MemorySink();
  const log = captureLogger();
  const chunks: Buffer[] = [];
  const config = serialConfig({ path: pair.devicePath, ...over });
  const source = new SerialSource({ config, sink, logger: log.logger, clock, openLink: countingOpen(chunks) });
  cleanups.push(
    dir.cleanup,
    () => pair.close(),
    () => source.stop(),
  );
  await source.start();
  expect(source.status().online).toBe(true);
  return { dir, pair, sink, log, source, chunks };
}

describe('serial source on a real pseudo-terminal', () => {
  beforeAll(requireSocat);

  it('reads regex lines and journals each with the terminal time, untouched by zones', async () => {
    const { pair, sink, source, chunks } = await setup({ timezone: 'Asia/Kolkata' });
    const written: string[] = [];
    const startAt = Date.UTC(2026, 10, 22, 8, 0, 0);
    const res = await startSerialSim({
      path: pair.peerPath,
      format: 'regex',
      rate: 0,
      count: 50,
      startAt,
      timezone: 'UTC',
      lineEnding: 'lf',
      onLine: (l) => written.push(l),
    }).done;
    expect(res.punches).toBe(50);
    await waitFor(() => sink.punches.length === 50, 10_000, '50 punches');
    expect(written[0]).toBe('1001,2026-11-22 08:00:00');
    expect(sink.punches[0]).toEqual({
      terminal: 'clock1',
      device: '',
      biometricCode: '1001',
      logTime: '2026-11-22 08:00:00',
    });
    expect(sink.punches.map((p) => `${p.biometricCode},${p.logTime}`)).toEqual(written);
    const st = source.status();
    expect(st).toMatchObject({ lines: 50, accepted: 50, malformed: 0, duplicates: 0 });
    // One journal transaction per read at most: nothing waits in memory across reads.
    expect(sink.calls.reduce((a, b) => a + b, 0)).toBe(50);
    expect(sink.calls.length).toBeLessThanOrEqual(chunks.length);
  });

  it('survives noise between good lines and counts it, with logging rate-limited', async () => {
    const { pair, sink, source, log } = await setup();
    const good: string[] = [];
    const res = await startSerialSim({
      path: pair.peerPath,
      format: 'regex',
      rate: 0,
      count: 300,
      noise: 0.5,
      seed: 7,
      onLine: (l, kind) => kind === 'punch' && good.push(l),
    }).done;
    expect(res.noise).toBeGreaterThan(100);
    await waitFor(() => sink.punches.length === 300 && source.status().malformed === res.noise, 10_000, 'all lines');
    expect(sink.punches.map((p) => `${p.biometricCode},${p.logTime}`)).toEqual(good);
    const st = source.status();
    expect(st.lines).toBe(300 + res.noise);
    // The first malformed line is logged at once, the rest are held for the 10 s window.
    const warnings = log.entries.filter((e) => /malformed/.test(e.msg));
    expect(warnings).toHaveLength(1);
    await source.stop();
    const after = log.entries.filter((e) => /malformed/.test(e.msg));
    expect(after).toHaveLength(2);
    expect(after[1]?.count).toBe(res.noise - 1);
  });

  it('joins a line split across writes, for every line ending', async () => {
    for (const eol of ['crlf', 'cr', 'lf'] as const) {
      const { pair, sink, source, chunks } = await setup();
      const written: string[] = [];
      const res = await startSerialSim({
        path: pair.peerPath,
        format: 'regex',
        rate: 0,
        count: 5,
        split: true,
        splitPauseMs: 50,
        lineEnding: eol,
        onLine: (l) => written.push(l),
      }).done;
      expect(res.punches).toBe(5);
      await waitFor(() => sink.punches.length === 5, 10_000, `5 split punches (${eol})`);
      expect(sink.punches.map((p) => `${p.biometricCode},${p.logTime}`)).toEqual(written);
      expect(source.status().malformed).toBe(0);
      // The halves really arrived in separate reads (a loaded box may merge an odd pair: most, not all).
      const whole = written.filter((l) => chunks.some((c) => c.toString('latin1').includes(l)));
      expect(whole.length).toBeLessThanOrEqual(2);
    }
  });

  it('card format: stamps the box clock in the terminal zone and maps cards, journalling unknown ones visibly', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const map = dir.path('cards.csv');
    writeFileSync(map, 'card,biometriccode\n0004521000,E-100\n4521001,E-101\n');
    const fixed = Date.UTC(2026, 10, 22, 2, 30, 5);
    const { pair, sink, source } = await setup(
      { format: 'card', codeMap: map, timezone: 'Asia/Kolkata' },
      { now: () => fixed },
    );
    await startSerialSim({ path: pair.peerPath, format: 'card', rate: 0, count: 3 }).done;
    await waitFor(() => sink.punches.length === 3, 10_000, '3 card punches');
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['E-100', 'E-101', `${UNKNOWN_CARD_PREFIX}0004521002`]);
    expect(sink.punches.every((p) => p.logTime === wallClockAt(fixed, 'Asia/Kolkata'))).toBe(true);
    expect(sink.punches[0]?.logTime).toBe('2026-11-22 08:00:05');
    const st = source.status();
    expect(st.unknownCards).toEqual(['0004521002']);
    expect(st.unknownCardPunches).toBe(1);
  });
});
