import type { ZkTerminalConfig } from '../../config/terminals.js';
import { pollOnDrop } from '../poll-on-drop.js';
import { cronScheduler, PollLoop, spreadOffsetMs, type Scheduler } from '../schedule.js';
import type { Source, SourceDeps } from '../types.js';
import { defaultClientFactory, pollTerminal, type ClientFactory, type DownloadMark, type PollResult } from './poll.js';
import { RealtimeLink, type RealtimeOptions } from './realtime.js';

/**
 * One ZK terminal as a source: polled on its cron schedule in its time zone (one poll at a time,
 * backing off while unreachable: src/sources/schedule.ts), with an optional real-time link. Each
 * terminal has its own source, so one terminal's trouble never delays another.
 */
export class ZkSource implements Source {
  readonly name: string;
  private readonly loop: PollLoop<PollResult>;
  /** The last complete download, kept in memory: a restarted daemon reads each log once in full. */
  private lastDownload: DownloadMark | undefined;
  private realtime: RealtimeLink | undefined;
  private readonly abort = new AbortController();
  /** A poll was asked for because the real-time link heard the terminal during this run of failed polls. */
  private heardWhileFailing = false;

  constructor(
    private readonly cfg: ZkTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly opts: { scheduler?: Scheduler; clientFactory?: ClientFactory; realtime?: RealtimeOptions } = {},
  ) {
    this.name = cfg.name;
    this.loop = new PollLoop({
      spec: { expression: cfg.schedule, timezone: cfg.timezone, offsetMs: spreadOffsetMs(cfg.name, cfg.schedule) },
      scheduler: opts.scheduler ?? cronScheduler(deps.logger, deps.clockSteps),
      poll: () =>
        pollTerminal(this.cfg, this.deps, this.opts.clientFactory, this.abort.signal, this.lastDownload).then((r) => {
          if (r.ok && r.download) this.lastDownload = r.download;
          if (r.ok) this.heardWhileFailing = false;
          return r;
        }),
      // pollTerminal reports trouble in its result; only a journal that cannot record it lands here.
      onError: (e) => this.deps.logger.error({ terminal: this.cfg.name, err: String(e) }, 'poll ended with an error'),
    });
  }

  async start(): Promise<void> {
    if (this.cfg.realtime) {
      this.realtime = new RealtimeLink(
        this.cfg,
        this.deps,
        this.opts.clientFactory ?? defaultClientFactory,
        () => this.deps.ledger.get(this.cfg.name)?.serial ?? '',
        { ...this.opts.realtime, onContact: () => this.heard(), onDrop: pollOnDrop(this.loop) },
      );
      this.realtime.start();
    }
    this.loop.start();
  }

  /**
   * The real-time link heard the terminal (it connected, or a punch came) while its polls fail:
   * it is back (a cable plugged in again), so poll now instead of waiting out the backoff (up to 16
   * ticks: a quarter of an hour on a one-minute schedule, with the terminal shown OFFLINE while its
   * punches arrive live, and what it recorded while away not read). Once per run of failed polls:
   * a terminal that takes one session, held by the link, fails that poll, and is not polled at
   * each of its punches.
   */
  private heard(): void {
    if (this.loop.failures === 0 || this.heardWhileFailing) return;
    this.heardWhileFailing = true;
    this.loop.pollAgain();
  }

  /** Polls now unless a poll is already running (then returns that one). */
  pollNow(): Promise<PollResult> {
    return this.loop.pollNow();
  }

  /** Real-time events received but not yet in the journal (it is busy). */
  get held(): number {
    return this.realtime?.held ?? 0;
  }

  async stop(): Promise<void> {
    const polled = this.loop.stop(); // no tick from here on
    // A running poll is cut short (its journal writes are synchronous: none is half done).
    this.abort.abort();
    await this.realtime?.stop();
    await polled;
  }
}
