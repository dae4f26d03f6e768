import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { listenPath } from '../listen.js';
import { pollOnDrop } from '../poll-on-drop.js';
import { streamMayConnectAt } from '../http-poll.js';
import { terminalPollLoop, type PollLoop, type Scheduler } from '../schedule.js';
import type { Source, SourceDeps } from '../types.js';
import { HikvisionPoller, type HikClientFactory, type HikPollResult } from './poll.js';
import { readTerminalPassword } from './password.js';
import { HikvisionListenEndpoint } from './listen-endpoint.js';
import { AlertStreamLink, type AlertStreamOptions } from './realtime.js';

export type { Scheduler } from '../schedule.js';

export interface HikvisionSourceOptions {
  scheduler?: Scheduler;
  clientFactory?: HikClientFactory;
  env?: NodeJS.ProcessEnv;
  /** The alert stream's reconnect waits and health (tests shorten them). */
  stream?: AlertStreamOptions;
}

/**
 * One Hikvision terminal as a source: polled on its schedule, one poll at a time, backing off
 * while unreachable and for minutes after a refused password; optionally the alert stream for
 * punches as they happen, with a backfill poll after every reconnect.
 */
export class HikvisionSource implements Source {
  readonly name: string;
  private readonly poller: HikvisionPoller;
  private readonly loop: PollLoop<HikPollResult>;
  private realtime: AlertStreamLink | undefined;
  private listening: { path: string; endpoint: HikvisionListenEndpoint } | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly opts: HikvisionSourceOptions = {},
  ) {
    this.name = cfg.name;
    this.poller = new HikvisionPoller(cfg, deps, opts.clientFactory, opts.env);
    this.loop = terminalPollLoop(cfg, deps, opts.scheduler, () =>
      this.poller.poll(this.abort.signal).then((r) => {
        // A refused password has its own, longer wait (in the journal): no tick skipping on top.
        r.noBackoff ||= r.authRefused;
        // The password works: the alert stream may open now (it waits for a poll to prove it),
        // also when the poll stopped at a bound (a large log read over several polls).
        if (r.reached) this.realtime?.nudge();
        return r;
      }),
    );
  }

  async start(): Promise<void> {
    if (this.cfg.listen) {
      if (!this.deps.listeners)
        throw new Error(`terminal ${this.cfg.name} posts its events (listen: true): set adms.listen`);
      const endpoint = new HikvisionListenEndpoint(this.cfg, this.deps, {
        serial: () => this.deps.ledger.get(this.cfg.name)?.serial ?? '',
        backfill: () => this.loop.pollAgain(),
        unknownMinors: this.poller.unknownMinors,
      });
      this.listening = { path: listenPath('hikvision', this.cfg.name), endpoint };
      this.deps.listeners.addListened(this.listening.path, endpoint);
    }
    if (this.cfg.realtime) {
      this.realtime = new AlertStreamLink(
        this.cfg,
        this.deps,
        {
          client: async () => this.poller.clientFor(readTerminalPassword(this.cfg, this.opts.env)),
          serial: () => this.deps.ledger.get(this.cfg.name)?.serial ?? '',
          // It waits for a poll to prove the password, and for a refusal's wait to end.
          authWaitUntil: () => streamMayConnectAt(this.deps.clock.now(), this.poller),
          onAuthRefused: (e) => this.poller.refused(e),
          // After every (re)connect, and when the stream tells of events not journalled yet, a
          // backfill by serial number: right after a running poll if need be (never two at once).
          backfill: () => this.loop.pollAgain(),
          onDrop: pollOnDrop(this.loop),
          unknownMinors: this.poller.unknownMinors,
        },
        this.opts.stream,
      );
      // It opens once a poll has accepted the password (see authWaitUntil and nudge).
      this.realtime.start();
    }
    this.loop.start();
  }

  /** A poll is running (or asked for right after the running one). */
  get polling(): boolean {
    return this.loop.polling;
  }

  /** Polls now unless a poll is running (then returns that one). */
  pollNow(): Promise<HikPollResult> {
    return this.loop.pollNow();
  }

  async stop(): Promise<void> {
    const polled = this.loop.stop(); // no tick from here on
    this.abort.abort();
    await this.realtime?.stop();
    if (this.listening) {
      this.deps.listeners?.removeListened(this.listening.path, this.listening.endpoint);
      this.listening.endpoint.stop();
    }
    await polled;
    this.poller.destroy();
  }
}
