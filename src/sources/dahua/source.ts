import type { DahuaTerminalConfig } from '../../config/terminals.js';
import { streamMayConnectAt } from '../http-poll.js';
import { pollOnDrop } from '../poll-on-drop.js';
import { terminalPollLoop, type PollLoop, type Scheduler } from '../schedule.js';
import type { Source, SourceDeps } from '../types.js';
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
    this.loop = terminalPollLoop(cfg, deps, opts.scheduler, () =>
      this.poller.poll(this.abort.signal).then((r) => {
        if (r.reached) this.link?.nudge();
        return r;
      }),
    );
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
          onDrop: pollOnDrop(this.loop),
          authWaitUntil: () => streamMayConnectAt(this.deps.clock.now(), this.poller),
          onAuthRefused: (e) => this.poller.refused(e),
          note: (words) => writeDahuaNote(this.deps.state, this.cfg.name, 'stream', words, this.deps.clock.now(), log),
          now: () => this.deps.clock.now(),
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
