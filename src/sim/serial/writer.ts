import { setTimeout as sleep } from 'node:timers/promises';
import type { SerialPort } from 'serialport';
import { loadSerialport } from '../../sources/serial/port.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { SimLines, type SimFormat } from './lines.js';
import { ReaderSteps, type SimReader } from './readers.js';

export type LineEnding = 'lf' | 'crlf' | 'cr';
const ENDINGS: Record<LineEnding, string> = { lf: '\n', crlf: '\r\n', cr: '\r' };

export interface SerialSimOptions {
  /** Device to write to: the peer of a pty pair, or a real serial port. */
  path: string;
  format: SimFormat;
  /** A reader that does not print lines (readers.ts): replaces `format`'s lines. */
  reader?: SimReader;
  /** Punch lines per second; 0 = as fast as the line takes them. Default 1. */
  rate?: number;
  /** Punch lines to write; default no end (until stop()). */
  count?: number;
  /** Chance (0-1) of a garbage line after each punch line. */
  noise?: number;
  codes?: readonly string[];
  /** Write each line in two pieces with a pause between, so the reader gets it in two reads. */
  split?: boolean;
  /** Pause between the pieces of a split line (ms, default 20). */
  splitPauseMs?: number;
  seed?: number;
  /** Epoch ms of the first regex time. */
  startAt?: number;
  timezone?: string;
  lineEnding?: LineEnding;
  /** For a real port; a pty ignores it. Default 9600. */
  baudRate?: number;
  clock?: Clock;
  /** Called for each line once it has been written (without its ending; a reader's: see ReaderStep.shown). */
  onLine?: (line: string, kind: 'punch' | 'noise' | 'key' | 'repeat') => void;
}

export interface SerialSimResult {
  punches: number;
  noise: number;
  bytes: number;
  /** Frames sent again while a tag stays on the antenna (reader rdm6300-held): part of a read. */
  repeats: number;
  /** Keypad keys written (reader wiegand-keypad). */
  keys: number;
}

export interface SerialSimRun {
  /** Resolves when `count` lines are written or after stop(); rejects when the device fails. */
  readonly done: Promise<SerialSimResult>;
  /**
   * Stops at once and resolves with what was written: a write or drain still waiting (a reader
   * that opened the device but does not read, so its buffer is full) is given up, never awaited.
   */
  stop(): Promise<SerialSimResult>;
}

/** What a write, drain or pause waiting at stop() rejects with: not a device failure. */
const STOPPED = Symbol('serial sim stopped');

/** Lines written in one write when running flat out: fewer system calls, same bytes. */
const BATCH = 64;

export function startSerialSim(opts: SerialSimOptions): SerialSimRun {
  const stop = new AbortController();
  const done = run(opts, stop.signal);
  // A failing device rejects `done`; callers may only look at it later (after a stop()).
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      stop.abort();
      return done;
    },
  };
}

async function run(opts: SerialSimOptions, signal: AbortSignal): Promise<SerialSimResult> {
  const isStopped = () => signal.aborted;
  // Every wait races the stop: a write to a full pty buffer never completes, and a SIGTERM must
  // not wait for a reader that does not read.
  const halted = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(STOPPED), { once: true }),
  );
  halted.catch(() => undefined);
  const untilStopped = <T>(p: Promise<T>): Promise<T> => Promise.race([p, halted]);
  const pause = (ms: number) => untilStopped(sleep(ms, undefined, { signal }));
  const count = opts.count ?? Infinity;
  const rate = opts.rate ?? 1;
  const eol = ENDINGS[opts.lineEnding ?? 'crlf'];
  const lines = new SimLines({
    format: opts.format,
    codes: opts.codes,
    count,
    startAt: opts.startAt,
    timezone: opts.timezone,
    noise: opts.noise,
    seed: opts.seed,
    clock: opts.clock ?? systemClock,
  });
  const result: SerialSimResult = { punches: 0, noise: 0, bytes: 0, keys: 0, repeats: 0 };
  const { SerialPort } = await loadSerialport();
  const port = new SerialPort({ path: opts.path, baudRate: opts.baudRate ?? 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
  port.on('error', () => {
    // Write errors reach the write callbacks below; this only keeps the process alive.
  });
  const write = (text: string) =>
    untilStopped(
      new Promise<void>((resolve, reject) => {
        const buf = Buffer.from(text, 'latin1');
        // Counted once written: bytes given up at a stop are not claimed.
        port.write(buf, (e) => (e ? reject(e) : ((result.bytes += buf.length), resolve())));
      }),
    );
  const flush = () => untilStopped(drain(port));

  const started = Date.now();
  try {
    if (opts.reader) {
      await runReader(opts, opts.reader, count, rate, result, write, flush, pause, isStopped);
      return result;
    }
    while (result.punches < count && !isStopped()) {
      // How many punch lines are due now (all of them when running flat out).
      const due = rate > 0 ? Math.floor(((Date.now() - started) * rate) / 1000) + 1 : Infinity;
      const n = Math.min(count - result.punches, due - result.punches, opts.split ? 1 : BATCH);
      if (n <= 0) {
        await pause(Math.max(1, started + (result.punches * 1000) / rate - Date.now()));
        continue;
      }
      const batch: { line: string; kind: 'punch' | 'noise' }[] = [];
      for (let k = 0; k < n; k++) {
        batch.push({ line: lines.punch(), kind: 'punch' });
        const junk = lines.noise();
        if (junk !== null) batch.push({ line: junk, kind: 'noise' });
      }
      for (const item of opts.split ? batch : []) {
        const text = item.line + eol;
        const cut = Math.max(1, Math.floor(text.length / 2));
        await write(text.slice(0, cut));
        await flush();
        await pause(opts.splitPauseMs ?? 20);
        await write(text.slice(cut));
      }
      if (!opts.split) await write(batch.map((b) => b.line + eol).join(''));
      for (const b of batch) {
        if (b.kind === 'punch') result.punches++;
        else result.noise++;
        opts.onLine?.(b.line, b.kind);
      }
    }
    await flush();
  } catch (e) {
    if (!isStopped() || !(e === STOPPED || (e instanceof Error && e.name === 'AbortError'))) throw e;
  } finally {
    await new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve()));
  }
  return result;
}

/** A reader's reads, one at a time, each step written and drained, with its pauses. */
async function runReader(
  opts: SerialSimOptions,
  reader: SimReader,
  count: number,
  rate: number,
  result: SerialSimResult,
  write: (text: string) => Promise<void>,
  flush: () => Promise<void>,
  pause: (ms: number) => Promise<unknown>,
  isStopped: () => boolean,
): Promise<void> {
  const steps = new ReaderSteps(reader, { codes: opts.codes, noise: opts.noise, seed: opts.seed });
  const started = Date.now();
  for (let n = 0; n < count && !isStopped(); n++) {
    if (rate > 0) {
      const due = started + (n * 1000) / rate;
      if (due > Date.now()) await pause(due - Date.now());
    }
    for (const step of steps.next()) {
      await write(step.bytes);
      await flush();
      if (step.kind === 'punch') result.punches++;
      else if (step.kind === 'key') result.keys++;
      else if (step.kind === 'repeat') result.repeats++;
      else result.noise++;
      opts.onLine?.(step.shown, step.kind);
      if (step.pauseMs > 0) await pause(step.pauseMs);
    }
  }
}

function drain(port: SerialPort): Promise<void> {
  return new Promise((resolve, reject) => port.drain((e) => (e ? reject(e) : resolve())));
}
