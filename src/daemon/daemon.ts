import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import { Deliverer } from '../delivery/index.js';
import { AttendanceClient } from '../hrms/attendance.js';
import { TokenSource } from '../hrms/token.js';
import { Journal } from '../journal/journal.js';
import { isFatalJournalError } from '../journal/errors.js';
import { compilePatterns } from '../delivery/outcomes.js';
import { checkTerminalConfig, createSource } from '../sources/build.js';
import type { SourceDeps } from '../sources/types.js';
import { buildStatus } from '../status/index.js';
import { StatusLog } from './status-log.js';
import { SourceSet, type SourceFactory } from './sources.js';
import { TimedSender } from './watchdog.js';
import type { Notifier } from './sd-notify.js';

const DAY_MS = 86_400_000;

export interface DaemonOptions {
  configPath: string;
  notifier: Notifier;
  /** Tests replace how sources are built (e.g. a manual schedule). */
  sourceFactory?: SourceFactory;
  /** Called once on a fatal condition (journal unwritable, disk full): the process must exit. */
  onFatal: (err: unknown) => void;
}

/**
 * `punchgate run`: terminals -> sources -> journal -> delivery -> HRMS in one process.
 * Collection never waits on delivery: sources write to the journal, and the delivery
 * loop drains it on its own schedule, so an HRMS outage only grows the journal.
 */
export class Daemon {
  private config: Config;
  private readonly journal: Journal;
  private tokens: TokenSource;
  private delivery:
    { deliverer: Deliverer; sender: TimedSender; abort: AbortController; done: Promise<void> } | undefined;
  private readonly sources: SourceSet;
  private readonly statusLog: StatusLog;
  private timers: NodeJS.Timeout[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: DaemonOptions,
  ) {
    this.config = ctx.config;
    const c = ctx.config;
    this.journal = Journal.open({
      path: c.journal.path,
      site: c.site,
      clock: ctx.clock,
      mode: 'owner',
      retentionDays: c.journal.retentionDays,
      futureToleranceMinutes: c.journal.futureToleranceMinutes,
      rejectedRetry: c.delivery.rejectedRetry,
      deadAfterAttempts: c.delivery.deadAfterAttempts,
      deadAfterDays: c.delivery.deadAfterDays,
    });
    this.tokens = new TokenSource({ tokenFile: c.hrms.tokenFile, secrets: ctx.secrets });
    const deps: SourceDeps = {
      sink: { ingest: (p, o) => this.guard(() => this.journal.ingest(p, o)) },
      ledger: this.journal.terminals,
      deliveryCheck: this.journal.queries,
      logger: ctx.logger,
      clock: ctx.clock,
      onPunches: () => this.delivery?.deliverer.wake(),
    };
    this.sources = new SourceSet(opts.sourceFactory ?? createSource, deps, ctx.logger);
    this.statusLog = new StatusLog(c.status.path!, () => buildStatus(this.journal, this.config, ctx.clock.now()), ctx);
  }

  async start(): Promise<void> {
    const { logger } = this.ctx;
    this.prune();
    this.startDelivery();
    await this.sources.apply(this.config.terminals);
    this.statusLog.start(this.config.status.intervalMs);
    this.every(DAY_MS, () => this.prune());
    const wd = this.opts.notifier.watchdogIntervalMs();
    if (wd) this.every(wd, () => this.healthy() && this.opts.notifier.watchdog());
    this.opts.notifier.ready(`collecting from ${this.sources.names().length} terminals`);
    logger.info(
      { site: this.config.site, terminals: this.sources.names(), journal: this.config.journal.path },
      'punchgate running',
    );
  }

  /** SIGHUP: re-read the config and the token file; keep the running config if the new one is invalid. */
  async reload(): Promise<void> {
    const { logger } = this.ctx;
    let next: Config;
    try {
      next = loadConfig(this.opts.configPath, checkTerminalConfig);
    } catch (e) {
      logger.error({ problems: (e as Error).message.split('\n') }, 'config reload failed: keeping the running config');
      return;
    }
    if (next.journal.path !== this.config.journal.path || next.site !== this.config.site) {
      logger.warn('journal.path and site changes take effect only after a restart');
      next = { ...next, journal: this.config.journal, site: this.config.site };
    }
    const hrmsChanged =
      JSON.stringify([next.hrms, next.delivery]) !== JSON.stringify([this.config.hrms, this.config.delivery]);
    this.config = next;
    this.ctx.config = next;
    this.tokens = new TokenSource({ tokenFile: next.hrms.tokenFile, secrets: this.ctx.secrets });
    this.opts.notifier.reloading();
    if (hrmsChanged) {
      await this.stopDelivery();
      this.startDelivery();
    }
    await this.sources.apply(next.terminals);
    this.statusLog.write();
    this.opts.notifier.ready(`collecting from ${this.sources.names().length} terminals`);
    logger.info({ terminals: this.sources.names() }, 'config reloaded');
  }

  /** Stops collecting, abandons an in-flight request safely (its punches go back to pending), closes the journal. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.opts.notifier.stopping();
      for (const t of this.timers) clearInterval(t);
      await this.sources.stopAll();
      await this.stopDelivery();
      this.statusLog.stop();
      this.statusLog.write();
      this.journal.close();
      this.ctx.logger.info('punchgate stopped');
    })();
    return this.stopping;
  }

  private startDelivery(): void {
    const c = this.config;
    const inner = new AttendanceClient({
      hrms: c.hrms,
      authPatterns: compilePatterns(c.delivery.patterns.authFailure),
    });
    const sender = new TimedSender(inner, this.ctx.clock.now);
    const deliverer = new Deliverer({
      queue: this.journal,
      state: this.journal.deliveryState,
      tokens: this.tokens,
      hrms: c.hrms,
      delivery: c.delivery,
      logger: this.ctx.logger,
      clock: this.ctx.clock,
      sender,
    });
    const abort = new AbortController();
    const done = deliverer.run(abort.signal).catch((e) => {
      if (isFatalJournalError(e)) this.opts.onFatal(e);
      else this.ctx.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'delivery loop ended');
    });
    this.delivery = { deliverer, sender, abort, done };
  }

  private async stopDelivery(): Promise<void> {
    const d = this.delivery;
    if (!d) return;
    this.delivery = undefined;
    d.abort.abort();
    await d.done;
    await d.deliverer.close();
    await d.sender.close();
  }

  /** The watchdog is fed only while the journal answers and no HRMS request hangs past its deadline. */
  private healthy(): boolean {
    try {
      this.journal.dueCount();
    } catch {
      return false;
    }
    const since = this.delivery?.sender.inflightSince;
    const bound = this.config.hrms.timeoutMs + this.config.hrms.connectTimeoutMs + 10_000;
    return since === null || since === undefined || this.ctx.clock.now() - since < bound;
  }

  private prune(): void {
    const n = this.guard(() => this.journal.prune());
    if (n > 0)
      this.ctx.logger.info(
        { deleted: n, retentionDays: this.config.journal.retentionDays },
        'delivered punches past the retention removed',
      );
  }

  /** Journal errors that break the promise (disk full, unwritable) end the process. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (isFatalJournalError(e)) this.opts.onFatal(e);
      throw e;
    }
  }

  private every(ms: number, fn: () => unknown): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }
}
