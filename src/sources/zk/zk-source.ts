import type { ZkTerminalConfig } from '../../config/terminals.js';
import { backoffDelay } from '../../util/backoff.js';
import { cronTimer, parseCron } from '../../util/cron.js';
import type { Source, SourceDeps } from '../types.js';
import { defaultClientFactory, pollTerminal, type ClientFactory, type DownloadMark, type PollResult } from './poll.js';
import { RealtimeLink } from './realtime.js';

/** Starts a repeating schedule; returns its stop function. Tests pass a manual one. */
export type Scheduler = (expression: string, tick: () => void) => () => void;

/** The terminal's cron schedule in the box's time zone (validated with the config). */
export const cronScheduler: Scheduler = (expression, tick) => {
  const schedule = parseCron(expression);
  if ('error' in schedule) throw new Error(`schedule ${JSON.stringify(expression)}: ${schedule.error}`);
  return cronTimer(schedule, tick);
};

/** Polls skipped while a terminal stays unreachable: 0, 1, 3, 7, then every 15th tick. */
export function ticksToSkip(failures: number): number {
  return failures <= 1 ? 0 : backoffDelay(failures - 1, { baseMs: 1, maxMs: 16 }) - 1;
}

/**
 * One ZK terminal as a source: polled on its cron schedule (one poll at a time, backing
 * off while unreachable), with an optional real-time link. Each terminal has its own
 * source, so one terminal's trouble never delays another.
 */
export class ZkSource implements Source {
  readonly name: string;
  private stopSchedule: (() => void) | undefined;
  private running: Promise<PollResult> | undefined;
  private failures = 0;
  /** The last complete download, kept in memory: a restarted daemon reads each log once in full. */
  private lastDownload: DownloadMark | undefined;
  private skip = 0;
  private realtime: RealtimeLink | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly cfg: ZkTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly opts: { scheduler?: Scheduler; clientFactory?: ClientFactory } = {},
  ) {
    this.name = cfg.name;
  }

  async start(): Promise<void> {
    const scheduler = this.opts.scheduler ?? cronScheduler;
    this.stopSchedule = scheduler(this.cfg.schedule, () => void this.tick());
    if (this.cfg.realtime) {
      this.realtime = new RealtimeLink(
        this.cfg,
        this.deps,
        this.opts.clientFactory ?? defaultClientFactory,
        () => this.deps.ledger.get(this.cfg.name)?.serial ?? '',
      );
      this.realtime.start();
    }
    void this.tick();
  }

  /** Polls now unless a poll is already running (then returns that one). */
  pollNow(): Promise<PollResult> {
    this.running ??= pollTerminal(this.cfg, this.deps, this.opts.clientFactory, this.abort.signal, this.lastDownload)
      .then((r) => {
        if (r.ok && r.download) this.lastDownload = r.download;
        return r;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async tick(): Promise<void> {
    if (this.running || this.abort.signal.aborted) return;
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    let r: PollResult;
    try {
      r = await this.pollNow();
    } catch (e) {
      // pollTerminal reports trouble in its result; only a journal that cannot record it lands here.
      this.deps.logger.error({ terminal: this.cfg.name, err: String(e) }, 'poll ended with an error');
      return;
    }
    this.failures = r.ok ? 0 : this.failures + 1;
    this.skip = ticksToSkip(this.failures);
  }

  /** Real-time events received but not yet in the journal (it is busy). */
  get held(): number {
    return this.realtime?.held ?? 0;
  }

  async stop(): Promise<void> {
    this.stopSchedule?.();
    this.stopSchedule = undefined;
    // A running poll is cut short (its journal writes are synchronous: none is half done).
    this.abort.abort();
    await this.realtime?.stop();
    await this.running?.catch(() => undefined);
  }
}
