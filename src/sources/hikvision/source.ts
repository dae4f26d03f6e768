import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { backoffDelay } from '../../util/backoff.js';
import { cronTimer, parseCron } from '../../util/cron.js';
import type { Source, SourceDeps } from '../types.js';
import { nextAuthTry, readRefusal } from './auth-gate.js';
import { HikvisionPoller, type HikClientFactory, type HikPollResult } from './poll.js';
import { readTerminalPassword } from './password.js';
import { AlertStreamLink } from './realtime.js';

/**
 * Starts a repeating schedule; returns its stop function. The same shape as the ZK source's
 * (src/sources/zk/zk-source.ts), so both move to the shared scheduler together.
 */
export type Scheduler = (expression: string, tick: () => void) => () => void;

export const cronScheduler: Scheduler = (expression, tick) => {
  const schedule = parseCron(expression);
  if ('error' in schedule) throw new Error(`schedule ${JSON.stringify(expression)}: ${schedule.error}`);
  return cronTimer(schedule, tick);
};

/** The alert stream waits this long for a poll to prove the password before it looks again. */
const STREAM_WAITS_FOR_POLL_MS = 5000;

/** Ticks skipped while a terminal stays unreachable: 0, 1, 3, 7, then every 16th tick (as for ZK). */
export function ticksToSkip(failures: number): number {
  return failures <= 1 ? 0 : backoffDelay(failures - 1, { baseMs: 1, maxMs: 16 }) - 1;
}

export interface HikvisionSourceOptions {
  scheduler?: Scheduler;
  clientFactory?: HikClientFactory;
  env?: NodeJS.ProcessEnv;
}

/**
 * One Hikvision terminal as a source: polled on its schedule, one poll at a time, backing off
 * while unreachable and for minutes after a refused password; optionally the alert stream for
 * punches as they happen, with a backfill poll after every reconnect.
 */
export class HikvisionSource implements Source {
  readonly name: string;
  private readonly poller: HikvisionPoller;
  private stopSchedule: (() => void) | undefined;
  private running: Promise<HikPollResult> | undefined;
  /** A poll asked for while one ran (a reconnect's backfill): run it right after. */
  private again = false;
  private failures = 0;
  private skip = 0;
  private realtime: AlertStreamLink | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    private readonly deps: SourceDeps,
    private readonly opts: HikvisionSourceOptions = {},
  ) {
    this.name = cfg.name;
    this.poller = new HikvisionPoller(cfg, deps, opts.clientFactory, opts.env);
  }

  async start(): Promise<void> {
    const scheduler = this.opts.scheduler ?? cronScheduler;
    this.stopSchedule = scheduler(this.cfg.schedule, () => void this.tick());
    if (this.cfg.realtime) {
      this.realtime = new AlertStreamLink(this.cfg, this.deps, {
        client: async () => this.poller.clientFor(readTerminalPassword(this.cfg, this.opts.env)),
        serial: () => this.deps.ledger.get(this.cfg.name)?.serial ?? '',
        authWaitUntil: () => this.authWaitUntil(),
        onAuthRefused: (e) => this.poller.refused(e),
        onOpen: () => void this.pollNow(),
      });
      // It opens once a poll has accepted the password (see authWaitUntil and nudge).
      this.realtime.start();
    }
    void this.tick();
  }

  /** A poll is running (or asked for right after the running one). */
  get polling(): boolean {
    return this.running !== undefined || this.again;
  }

  /** When the alert stream may (re)connect: after a poll proved the password, and outside a refusal's wait. */
  private authWaitUntil(): number | undefined {
    if (!this.poller.passwordAccepted()) return this.deps.clock.now() + STREAM_WAITS_FOR_POLL_MS;
    let changedAt: number | null = null;
    try {
      changedAt = readTerminalPassword(this.cfg, this.opts.env).changedAt;
    } catch {
      return this.deps.clock.now() + 60_000; // no password yet: the poll says why
    }
    const next = nextAuthTry(readRefusal(this.deps.state, this.cfg.name), changedAt);
    return next !== undefined && next > this.deps.clock.now() ? next : undefined;
  }

  /** Polls now; while a poll runs, one more follows it (returns the running one). */
  pollNow(): Promise<HikPollResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.poller
      .poll(this.abort.signal)
      .then((r) => {
        // The password works: the alert stream may open now (it waits for a poll to prove it).
        if (r.ok) this.realtime?.nudge();
        return r;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.abort.signal.aborted) {
          this.again = false;
          void this.pollNow();
        }
      });
    return this.running;
  }

  private async tick(): Promise<void> {
    if (this.running || this.abort.signal.aborted) return;
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    const r = await this.pollNow();
    // A refused password has its own, longer wait (in the journal): no tick skipping on top.
    this.failures = r.ok || r.authRefused ? 0 : this.failures + 1;
    this.skip = ticksToSkip(this.failures);
  }

  async stop(): Promise<void> {
    this.stopSchedule?.();
    this.stopSchedule = undefined;
    this.abort.abort();
    await this.realtime?.stop();
    await this.running?.catch(() => undefined);
    this.poller.destroy();
  }
}
