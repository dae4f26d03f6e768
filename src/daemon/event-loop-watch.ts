import {
  PerformanceObserver,
  constants as perfConstants,
  monitorEventLoopDelay,
  performance,
  type IntervalHistogram,
} from 'node:perf_hooks';
import { withTakeIn, withTogether } from '../journal/together.js';
import type { DeliveryQueue } from '../journal/types.js';
import type { LongTasks } from '../status/types.js';
import { LogBudget } from '../util/log-budget.js';
import type { Logger } from '../util/logger.js';

/** A turn of the event loop longer than this is said in the log as a warning, naming what ran. */
export const STALL_WARN_MS = 1000;
/** How often the watch looks whether the loop was held up (a timer: late by as long as the loop was). */
const TICK_MS = 500;
/**
 * Stall lines at most, per window (monotonic): a box that stays starved (a neighbour eating the
 * CPU, a swapping SD card) stalls every tick, and a line each made ~50,000 lines a day, enough for
 * journald's rate limit to drop other lines. The rest are counted in the next line, and the
 * status's eventLoop figures keep every stall.
 */
const STALL_LINES = 10;
const STALL_LINES_WINDOW_MS = 10 * 60_000;
/** Labelled tasks shorter than this are not remembered as what held the loop. */
const NOTED_MS = 20;
/**
 * A window younger than this, or than half a window, shows the last whole one instead: too few
 * turns to say anything, and a stall just past stays in sight for half an interval at least (for
 * `/status.json` and `status`, not only the one status log write between two rolls).
 */
const MIN_WINDOW_MS = 1000;
/** Labels tallied per window at most (each terminal's journal write has its own); the rest are counted together. */
const TALLIED_LABELS = 64;
/** The label of the garbage collector's pauses of NOTED_MS or more, by their kind (V8's own words). */
export const GC_LABEL = 'garbage collection';
/** Labels shown with the figures, the ones that held the loop longest in all. */
const SHOWN_LABELS = 5;
/** Where labels past TALLIED_LABELS are counted. */
export const OTHER_LABELS = '(other labelled tasks)';

/**
 * How often the delay monitor's own timer fires (ms). Node records the whole interval between
 * two of its turns, this period included: an idle loop reads 10.1 ms at 10, 1.1 at 1, 50.1 at 50
 * (nodejs/node#34661, and PR #62935: "samples had an implicit floor of resolution ms"). The
 * delay shown is that interval less this period, as Elastic's APM agent does
 * (open-telemetry-js-contrib#2794 discusses the same for OpenTelemetry).
 */
export const SAMPLE_MS = 10;

/** The event loop's delay over a window (milliseconds), as the status and /metrics show it. */
export interface EventLoopFigures {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The window's start (epoch ms). */
  since: number;
  /**
   * The labelled tasks that held the loop 20 ms or more in the window, longest in all first (at
   * most five labels): which of the daemon's own jobs made the delay, and the garbage collector's
   * pauses of 20 ms or more (`garbage collection (major)`...; a pause inside a labelled task is
   * counted in both). None: neither did (the delay came from unlabelled work or a box too busy
   * to run it).
   */
  longTasks?: LongTasks[];
}

/**
 * Watches the daemon's one thread: the delay of its event loop (perf_hooks'
 * monitorEventLoopDelay: how late a timer of its own fires), shown per status interval in the
 * status (`status --json`: eventLoop), and stalls over STALL_WARN_MS said in the log with what
 * ran. A labelled task that alone ran past it is said as it ends; otherwise a timer of the watch
 * that fires that late says it. What ran is known because the daemon's own jobs run under a label (`run`: the status
 * report, retention, a poll's journal write, a delivery batch's claim and settle...); a stall
 * outside them is said with the longest labelled task, or as not labelled.
 */
export class EventLoopWatch {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: SAMPLE_MS });
  private windowStart: number;
  /** The window's start on the monotonic clock: a box clock step neither ends nor stretches it. */
  private windowStartMono = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private lastTick = 0;
  /** The longest labelled task since the last tick. */
  private longest: { label: string; ms: number } | undefined;
  private current: string | undefined;
  /** The last whole window's figures, once one has ended. */
  private previous: EventLoopFigures | undefined;
  /** This window's labelled tasks of NOTED_MS or longer, per label. */
  private tasks = new Map<string, LongTasks>();
  private readonly stallLog = new LogBudget(STALL_LINES, STALL_LINES_WINDOW_MS);

  /** CPU time of the process (ms) at the last tick: a stall with little of it was the box's, not the daemon's. */
  private lastCpu = 0;
  /** Ends the watch on the garbage collector's pauses. */
  private stopGcWatch: (() => void) | undefined;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly wallNow: () => number = Date.now,
    /** The process's CPU time in ms, user and system (tests give their own). */
    private readonly cpuMs: () => number = processCpuMs,
    /** How long a window of the delay figures lasts (the daemon's status interval, as it is now; at least 1 s). */
    private readonly windowMs: () => number = () => 60_000,
    /** The monotonic clock a task is timed with (tests give their own: a task's length without a timed wait). */
    private readonly monoNow: () => number = () => performance.now(),
    /** Where the garbage collector's pauses are heard (tests give their own); returns how to stop. */
    private readonly gcPauses: (listener: (kind: string, ms: number) => void) => () => void = watchGcPauses,
  ) {
    this.windowStart = wallNow();
  }

  start(): void {
    this.histogram.enable();
    this.lastTick = performance.now();
    this.lastCpu = this.cpuMs();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
    this.stopGcWatch = this.gcPauses((kind, ms) => this.gcPaused(kind, ms));
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.histogram.disable();
    this.stopGcWatch?.();
    this.stopGcWatch = undefined;
  }

  /**
   * A pause of the garbage collector: one of NOTED_MS or more is tallied like a labelled task, so
   * that the status names it when it, not one of the daemon's jobs, held the loop.
   */
  private gcPaused(kind: string, ms: number): void {
    if (ms < NOTED_MS) return;
    const label = `${GC_LABEL} (${kind})`;
    this.tally(label, ms);
    if (ms > (this.longest?.ms ?? 0)) this.longest = { label, ms };
  }

  /** The task running now (its label), if a labelled one is. */
  get task(): string | undefined {
    return this.current;
  }

  /**
   * Runs `fn` (its synchronous part) under `label`. Cheap: two clock reads. A task that alone
   * held the loop past STALL_WARN_MS is said at once.
   */
  run<T>(label: string, fn: () => T): T {
    const outer = this.current;
    this.current = label;
    const t0 = this.monoNow();
    const cpu0 = this.cpuMs();
    try {
      return fn();
    } finally {
      const ms = this.monoNow() - t0;
      this.current = outer;
      if (ms >= NOTED_MS) this.tally(label, ms);
      if (ms > STALL_WARN_MS) {
        // Its CPU time tells whether the task itself was long or the box held the process
        // while it ran (a stopped process, a busy box): only two clock reads per task otherwise.
        this.stalled(ms, { label, ms }, this.cpuMs() - cpu0, 0);
        // Said: the tick that comes late because of it says nothing more.
        this.lastTick = performance.now();
      } else if (ms >= NOTED_MS && ms > (this.longest?.ms ?? 0)) this.longest = { label, ms };
    }
  }

  /**
   * The delay over the current window, or over the last whole one while the current is younger
   * than a second or half a window. Reading never starts a new window: `/status.json` and `status`
   * read the same figures the status log does, whoever asked last (before, each reading
   * began a window, so a scrape just before `status --json` left it all zeros). The window rolls by
   * time (`tick`).
   */
  figures(): EventLoopFigures | undefined {
    const current = this.windowFigures();
    const young = performance.now() - this.windowStartMono < Math.max(MIN_WINDOW_MS, this.windowMs() / 2);
    if (this.previous && (young || !current)) return this.previous;
    return current;
  }

  /** The current window's figures; none before the monitor measured a turn (zeros would say "no delay"). */
  private windowFigures(): EventLoopFigures | undefined {
    const h = this.histogram;
    // How late the monitor's timer fired: the interval it recorded less its own period.
    const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - SAMPLE_MS) * 10) / 10);
    if (h.count === 0) return undefined;
    const figures: EventLoopFigures = {
      p50Ms: ms(h.percentile(50)),
      p99Ms: ms(h.percentile(99)),
      maxMs: ms(h.max),
      since: this.windowStart,
    };
    const long = this.longTasks();
    if (long.length > 0) figures.longTasks = long;
    return figures;
  }

  /** Counts a labelled task that ran NOTED_MS or longer in this window. */
  private tally(label: string, ms: number): void {
    const key = this.tasks.has(label) || this.tasks.size < TALLIED_LABELS ? label : OTHER_LABELS;
    const t = this.tasks.get(key);
    if (t) {
      t.count++;
      t.totalMs += ms;
      if (ms > t.maxMs) t.maxMs = ms;
    } else this.tasks.set(key, { label: key, count: 1, maxMs: ms, totalMs: ms });
  }

  /** This window's long labelled tasks, the labels that held the loop longest in all first. */
  private longTasks(): LongTasks[] {
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return [...this.tasks.values()]
      .sort((a, b) => b.totalMs - a.totalMs)
      .slice(0, SHOWN_LABELS)
      .map((t) => ({ label: t.label, count: t.count, maxMs: round(t.maxMs), totalMs: round(t.totalMs) }));
  }

  /** Ends the current window (kept as the last whole one) and begins the next. */
  private roll(): void {
    this.previous = this.windowFigures() ?? this.previous;
    this.histogram.reset();
    this.tasks = new Map();
    this.windowStart = this.wallNow();
    this.windowStartMono = performance.now();
  }

  private tick(): void {
    const t = performance.now();
    const late = t - this.lastTick - TICK_MS;
    const cpu = this.cpuMs();
    const cpuMs = cpu - this.lastCpu;
    this.lastTick = t;
    this.lastCpu = cpu;
    if (t - this.windowStartMono >= Math.max(MIN_WINDOW_MS, this.windowMs())) this.roll();
    const longest = this.longest;
    this.longest = undefined;
    if (late > STALL_WARN_MS) this.stalled(late, longest, cpuMs, TICK_MS);
  }

  /**
   * Says a stall of `ms`. `cpuMs` is the process's CPU time over the same span (`spanExtraMs`
   * longer than the stall: the tick's own interval), which tells a long task of the daemon's
   * from a box that did not give it the CPU, whether or not a labelled task was running then.
   */
  private stalled(
    ms: number,
    longest: { label: string; ms: number } | undefined,
    cpuMs: number,
    spanExtraMs: number,
  ): void {
    // The process used the CPU for less than half of the span: the box did not give it the CPU
    // (other work on a busy box, a stopped process, a starved virtual machine).
    const held = this.stallLog.take(this.monoNow());
    if (held === undefined) return;
    const starved = cpuMs < (ms + spanExtraMs) / 2;
    const box = `the daemon itself ran only ${(cpuMs / 1000).toFixed(1)} s of it: the box did not give it the CPU (other work on the box, or the process was stopped)`;
    const what = starved
      ? longest
        ? `${longest.label} was running, but ${box}`
        : box
      : longest
        ? `${longest.label} ran ${(longest.ms / 1000).toFixed(1)} s`
        : 'no labelled task of the daemon, nor a pause of its garbage collector, ran long (a terminal burst, a large answer)';
    this.logger.warn(
      {
        stallMs: Math.round(ms),
        task: longest?.label ?? null,
        taskMs: longest ? Math.round(longest.ms) : null,
        cpuMs: Math.round(cpuMs),
        ...(held > 0 ? { stallsNotLogged: held } : {}),
      },
      `the daemon was blocked for ${(ms / 1000).toFixed(1)} s: ${what}; terminals, scrapes and delivery waited meanwhile${
        held > 0
          ? ` (${held} more stalls since the last such line were not logged: at most ${STALL_LINES} such lines per ${STALL_LINES_WINDOW_MS / 60_000} min; status --json eventLoop has the figures)`
          : ''
      }`,
    );
  }
}

/** V8's kinds of pause, as Node reports them (PerformanceEntry detail.kind). */
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * The garbage collector's pauses of this thread (perf_hooks' `gc` entries: one per pause, read in
 * batches after the pause, so a few microseconds each). Returns how to stop listening.
 */
function watchGcPauses(listener: (kind: string, ms: number) => void): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      // `detail.kind` since Node 16 (the entry's own `kind` is deprecated); not in every @types/node.
      const kind = ((e as { detail?: unknown }).detail as { kind?: number } | null | undefined)?.kind;
      listener((kind !== undefined && GC_KINDS[kind]) || 'other', e.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The delivery queue with its journal work run under labels (what held the loop, when it was held). */
export function labelledQueue(queue: DeliveryQueue, watch: Pick<EventLoopWatch, 'run'>): DeliveryQueue {
  return {
    claim: (limit, opts) => watch.run('delivery batch (claim)', () => queue.claim(limit, opts)),
    settle: (outcomes) => watch.run('delivery batch (settle)', () => queue.settle(outcomes)),
    release: (ids) => watch.run('delivery batch (release)', () => queue.release(ids)),
    ...withTogether(queue, (fn) => watch.run('delivery batch (settle and claim)', fn)),
    ...withTakeIn(queue, (fn) => watch.run("delivery (a sink's backlog taken in)", fn)),
    nextDueAt: () => queue.nextDueAt(),
    dueCount: (opts) => watch.run('delivery (queue count)', () => queue.dueCount(opts)),
  };
}
