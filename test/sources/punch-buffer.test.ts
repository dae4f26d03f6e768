import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PunchBuffer } from '../../src/sources/punch-buffer.js';
import { captureLogger, MemorySink } from '../serial/helpers.js';

const item = (i: number) => ({ punch: { terminal: 't', biometricCode: String(i), logTime: '2026-11-22 08:00:00' } });
const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('PunchBuffer: what a source cannot read again waits in memory for a busy journal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes at once when it can; while busy holds the punches in order and writes them together once free', async () => {
    const sink = new MemorySink();
    const buffer = new PunchBuffer({ sink, ingestOptions: () => ({}), log: captureLogger().logger });
    buffer.add([item(1)]);
    expect(sink.calls).toEqual([1]);
    sink.failNext = 3;
    buffer.add([item(2)]);
    buffer.add([item(3), item(4)]);
    expect(buffer.size).toBe(3);
    await vi.advanceTimersByTimeAsync(100 + 200 + 400);
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1', '2', '3', '4']);
    expect(sink.calls).toEqual([1, 3]);
    expect(buffer.size).toBe(0);
  });

  it('is bounded: beyond its capacity it asks the input to wait, refuses what does not fit, and says so', async () => {
    const sink = new MemorySink();
    const log = captureLogger();
    const events: string[] = [];
    const buffer = new PunchBuffer({
      sink,
      ingestOptions: () => ({}),
      log: log.logger,
      capacity: 3,
      onFull: () => events.push('full'),
      onRoom: () => events.push('room'),
    });
    sink.failNext = 1000;
    expect(buffer.add([item(1), item(2)])).toBe(0);
    expect(buffer.add([item(3), item(4)])).toBe(1);
    expect(events).toEqual(['full']);
    expect(log.entries.some((e) => /punches refused/.test(e.msg))).toBe(true);
    sink.failNext = 0;
    await vi.advanceTimersByTimeAsync(2000);
    expect(sink.punches.map((p) => p.biometricCode)).toEqual(['1', '2', '3']);
    expect(events).toEqual(['full', 'room']);
  });

  it('on stop waits a while (without blocking) for a busy journal, and reports what it never took', async () => {
    let refuse = true;
    const written: string[] = [];
    const sink = {
      ingest: (ps: readonly { biometricCode: string }[]) => {
        if (refuse) throw busy();
        written.push(...ps.map((p) => p.biometricCode));
        return { added: ps.length, duplicates: 0, quarantined: 0 };
      },
    };
    const log = captureLogger();
    const buffer = new PunchBuffer({ sink, ingestOptions: () => ({}), log: log.logger });
    buffer.add([item(1)]);
    const stopping = buffer.stop(5000);
    await vi.advanceTimersByTimeAsync(1000);
    refuse = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(await stopping).toEqual([]);
    expect(written).toEqual(['1']);

    refuse = true;
    const again = new PunchBuffer({ sink, ingestOptions: () => ({}), log: log.logger });
    again.add([item(2)]);
    const left = again.stop(1000);
    await vi.advanceTimersByTimeAsync(2000);
    expect((await left).map((q) => q.punch.biometricCode)).toEqual(['2']);
    expect(log.entries.some((e) => e.level === 50 && /did not take/.test(e.msg))).toBe(true);
  });
});
