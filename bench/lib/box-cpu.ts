import { readFileSync } from 'node:fs';
import { procCpuMs } from './rss.js';

/** The whole box's CPU time so far (all cores, ms): busy and in all, from /proc/stat (Linux); null elsewhere. */
export function boxCpuMs(): { busyMs: number; totalMs: number } | null {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  const f = (/^cpu\s+(.*)$/m.exec(text)?.[1] ?? '').split(/\s+/).map(Number);
  if (f.length < 5 || f.some((x) => !Number.isFinite(x))) return null;
  // user nice system idle iowait irq softirq steal: idle and iowait are the box not busy.
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busyMs: (total - idle) * 10, totalMs: total * 10 };
}

/** CPU time of named processes and of the box, read at the start and end of a measured span. */
export class CpuShares {
  private readonly start: Map<string, number>;
  private readonly boxStart: ReturnType<typeof boxCpuMs>;
  private readonly t0 = performance.now();

  constructor(private readonly pids: Record<string, number[]>) {
    this.start = this.read();
    this.boxStart = boxCpuMs();
  }

  private read(): Map<string, number> {
    const m = new Map<string, number>();
    for (const [name, pids] of Object.entries(this.pids))
      m.set(
        name,
        pids.reduce((a, pid) => a + (pid === process.pid ? selfCpuMs() : (procCpuMs(pid) ?? NaN)), 0),
      );
    return m;
  }

  /** Per name, its share of one core over the span (0.5: half a core); `box`: the whole box busy, in cores. */
  end(): { wallMs: number; cores: Record<string, number>; boxCores: number | undefined; boxOf: number | undefined } {
    const wallMs = performance.now() - this.t0;
    const now = this.read();
    const cores: Record<string, number> = {};
    for (const [name, ms] of now) cores[name] = (ms - (this.start.get(name) ?? NaN)) / wallMs;
    const b = boxCpuMs();
    const s = this.boxStart;
    const boxCores = b && s ? (b.busyMs - s.busyMs) / wallMs : undefined;
    const boxOf = b && s ? (b.totalMs - s.totalMs) / wallMs : undefined;
    return { wallMs, cores, boxCores, boxOf };
  }
}

function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
