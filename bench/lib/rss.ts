import { readFileSync } from 'node:fs';

export interface ProcMemory {
  rss: number;
  /** Kernel high-water mark of RSS since the process started. */
  hwm: number;
  /** Private anonymous memory (heaps): what the process itself costs. */
  anon: number;
  /** File-backed pages (mostly the node binary's code, shared with every node process). */
  file: number;
}

/**
 * RSS figures of a process, in bytes, from /proc/PID/status (Linux); null when it is gone, or
 * has ended and is not reaped yet (a zombie's status has no memory lines: read as figures, they
 * were NaN, and one such sample at a drainer's exit wiped its peak and VmHWM from the rss bench).
 */
export function procMemory(pid: number): ProcMemory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  const m = { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
  return Number.isFinite(m.rss) && Number.isFinite(m.hwm) ? m : null;
}

export interface RssSummary {
  samples: number;
  /** Highest sampled RSS. */
  peak: number;
  /** Last sampled RSS. */
  last: number;
  /** Median of the samples. */
  median: number;
  /**
   * Kernel high-water mark (VmHWM) at the last sample: catches peaks between samples, but the kernel
   * raises it lazily, so it can stand a few pages below a sampled peak: take the larger of the two.
   */
  hwm: number;
  /** Highest sampled RssAnon / RssFile (NaN when sampling this process). */
  peakAnon: number;
  peakFile: number;
}

/**
 * Samples a process's RSS every `everyMs` (default 100 ms): another process through /proc,
 * or this one through process.memoryUsage() (a busy event loop then delays samples; VmHWM does not miss).
 */
export class RssSampler {
  private readonly values: number[] = [];
  private hwm = NaN;
  private peakAnon = NaN;
  private peakFile = NaN;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number = process.pid,
    private readonly everyMs = 100,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
    return this;
  }

  /** Forgets the samples so far (after a warm-up); the kernel's VmHWM cannot be reset. */
  reset(): void {
    this.values.length = 0;
  }

  stop(): RssSummary {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    const sorted = [...this.values].sort((a, b) => a - b);
    return {
      samples: this.values.length,
      peak: sorted.at(-1) ?? NaN,
      last: this.values.at(-1) ?? NaN,
      median: sorted[Math.floor(sorted.length / 2)] ?? NaN,
      hwm: this.hwm,
      peakAnon: this.peakAnon,
      peakFile: this.peakFile,
    };
  }

  private sample(): void {
    if (this.pid === process.pid) {
      this.values.push(process.memoryUsage().rss);
      const m = procMemory(this.pid);
      if (m) this.hwm = m.hwm;
      return;
    }
    const m = procMemory(this.pid);
    if (!m) return;
    this.values.push(m.rss);
    this.hwm = m.hwm;
    this.peakAnon = Number.isNaN(this.peakAnon) ? m.anon : Math.max(this.peakAnon, m.anon);
    this.peakFile = Number.isNaN(this.peakFile) ? m.file : Math.max(this.peakFile, m.file);
  }
}

export const mb = (bytes: number) => bytes / (1024 * 1024);

/** CPU time (user + system) a process has used so far, in ms, from /proc/PID/stat (Linux); null when it is gone. */
export function procCpuMs(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: what /proc counts CPU time in (100 on every Linux that punchgate runs on). */
const CLOCK_TICKS_PER_SECOND = 100;
