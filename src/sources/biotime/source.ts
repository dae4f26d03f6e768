import type { BiotimeTerminalConfig } from '../../config/terminals.js';
import { terminalPollLoop, type PollLoop, type Scheduler } from '../schedule.js';
import type { Source, SourceDeps } from '../types.js';
import { BiotimePoller, type BioClientFactory, type BioPollResult } from './poll.js';

export interface BiotimeSourceOptions {
  scheduler?: Scheduler;
  clientFactory?: BioClientFactory;
  env?: NodeJS.ProcessEnv;
}

/** A ZKBioTime server as a source: polled on its schedule, one poll at a time. */
export class BiotimeSource implements Source {
  readonly name: string;
  private readonly poller: BiotimePoller;
  private readonly loop: PollLoop<BioPollResult>;
  private readonly abort = new AbortController();

  constructor(
    private readonly cfg: BiotimeTerminalConfig,
    private readonly deps: SourceDeps,
    opts: BiotimeSourceOptions = {},
  ) {
    this.name = cfg.name;
    this.poller = new BiotimePoller(cfg, deps, opts.clientFactory, opts.env);
    this.loop = terminalPollLoop(cfg, deps, opts.scheduler, () => this.poller.poll(this.abort.signal));
  }

  start(): Promise<void> {
    this.loop.start();
    return Promise.resolve();
  }

  pollNow(): Promise<BioPollResult> {
    return this.loop.pollNow();
  }

  async stop(): Promise<void> {
    const polled = this.loop.stop();
    this.abort.abort();
    await polled;
    this.poller.destroy();
  }
}
