import type { DahuaTerminalConfig } from '../../config/terminals.js';
import { cronScheduler, PollLoop, type Scheduler } from '../schedule.js';
import type { Source, SourceDeps } from '../types.js';
import { nextTry, readRefusal } from './auth-gate.js';
import { writeDahuaNote } from './notes.js';
import { readDahuaPassword } from './password.js';
import { DahuaPoller, type DahuaClientFactory, type DahuaPollResult } from './poll.js';
import { EventLink, type EventLinkOptions } from './realtime.js';

export interface DahuaSourceOptions {
  scheduler?: Scheduler;
  clientFactory?: DahuaClientFactory;
  env?: NodeJS.ProcessEnv;
  stream?: EventLinkOptions;
}

/** The event stream waits this long for a poll to prove the password before it looks again. */
const STREAM_WAITS_FOR_POLL_MS = 5000;

/**
 * One Dahua terminal as a source: polled on its schedule, one poll at a time; optionally the
 * event stream, whose access events each wake a read of the records at once (see realtime.ts).
 */
export class DahuaSource implements Source {
  readonly name: string;
  private readonly poller: DahuaPoller;
  private readonly loop: PollLoop<DahuaPollResult>;
  private link: EventLink | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly cfg: DahuaTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly opts: DahuaSourceOptions = {},
  ) {
    this.name = cfg.name;
    this.poller = new DahuaPoller(cfg, deps, opts.clientFactory, opts.env);
    this.loop = new PollLoop({
      spec: { expression: cfg.schedule, timezone: cfg.timezone },
      scheduler: opts.scheduler ?? cronScheduler(deps.logger, deps.clockSteps),
      poll: () =>
        this.poller.poll(this.abort.signal).then((r) => {
          if (r.reached) this.link?.nudge();
          return r;
        }),
      onError: (e) => this.deps.logger.error({ terminal: this.cfg.name, err: String(e) }, 'poll ended with an error'),
    });
  }

  async start(): Promise<void> {
    if (this.cfg.realtime) {
      const log = this.deps.logger.child({ terminal: this.cfg.name });
      this.link = new EventLink(
        this.cfg,
        log,
        {
          client: () => this.poller.clientFor(readDahuaPassword(this.cfg, this.opts.env)),
          backfill: () => this.loop.pollAgain(),
          authWaitUntil: () => this.authWaitUntil(),
          onAuthRefused: (e) => this.poller.refused(e),
          onFault: (words) =>
            writeDahuaNote(this.deps.state, this.cfg.name, 'stream', words, this.deps.clock.now(), log),
        },
        this.opts.stream,
      );
      this.link.start();
    }
    this.loop.start();
  }

  get polling(): boolean {
    return this.loop.polling;
  }

  private authWaitUntil(): number | undefined {
    const now = this.deps.clock.now();
    if (!this.poller.passwordAccepted()) return now + STREAM_WAITS_FOR_POLL_MS;
    try {
      const pw = readDahuaPassword(this.cfg, this.opts.env);
      return nextTry(readRefusal(this.deps.state, this.cfg.name), pw.changedAt, now);
    } catch {
      return now + 60_000;
    }
  }

  pollNow(): Promise<DahuaPollResult> {
    return this.loop.pollNow();
  }

  async stop(): Promise<void> {
    const polled = this.loop.stop();
    this.abort.abort();
    await this.link?.stop();
    await polled;
    this.poller.destroy();
  }
}
