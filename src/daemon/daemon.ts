import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import { configKeyIn } from '../config/terminals.js';
import { messageOf } from '../util/errors.js';
import { ConfigWatch } from './config-watch.js';
import type { Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import { Journal, type JournalOptions } from '../journal/journal.js';
import type { IngestOptions } from '../journal/types.js';
import type { Punch } from '../punch.js';
import { UserBackupStore } from '../journal/user-backups.js';
import { isBusyJournalError, isFatalJournalError } from '../journal/errors.js';
import type { AdmsReceiver } from '../sources/adms/index.js';
import { checkTerminalConfig, createSource, terminalSecrets } from '../sources/build.js';
import type { SourceDeps } from '../sources/types.js';
import { SerialPortHandover } from '../sources/serial/index.js';
import { buildStatus, LatestReport, type StatusReport } from '../status/index.js';
import { ALERT, alertLine } from '../status/alert-words.js';
import { ClockStepWatch, describeStep, type ClockStep } from '../util/clock-steps.js';
import { elapsedMs } from '../util/clock.js';
import { punchgateVersion } from '../util/version.js';
import { StatusWeb } from '../web/index.js';
import { DiskSyncWatch } from './disk-sync-watch.js';
import { warnLowDiskAtStart } from './disk-at-start.js';
import { journalPlaceProblem } from './journal-place.js';
import { EventLoopWatch, labelledQueue } from './event-loop-watch.js';
import { createPushReceiver } from './push-receiver.js';
import { StatusLog } from './status-log.js';
import { keepRestartOnly, restartOnlyChanges } from './restart-only.js';
import { SourceSet, type SourceFactory } from './sources.js';
import { SinkDeliveries } from './deliveries.js';
import type { SinkMakers } from '../sinks/build.js';
import { hrmsOutcome } from '../metrics/hrms-outcome.js';
import type { Notifier } from './sd-notify.js';
import { boundByFileHandles } from './file-handles.js';
import { openFilesLimit } from '../util/file-limit.js';
import { fileHandlesShort } from '../status/file-handle-words.js';
import { leftBehind } from './left-behind.js';

const DAY_MS = 86_400_000;
/**
 * How long the daemon's writes wait for another process's write lock. SQLite waits
 * synchronously, which would stop the daemon from reading serial lines and terminal events
 * meanwhile: so the wait is short, and what could not be written is kept and retried
 * asynchronously (sources' PunchBuffer, the journal's kept writes, delivery's backoff).
 */
export const DAEMON_BUSY_TIMEOUT_MS = 200;
/** How long systemd is asked to wait for each step of a journal's schema upgrade (bounded: a hung step still ends the start). */
const MIGRATION_STEP_ALLOWANCE_MS = 15 * 60_000;
/** How often claims of processes that are gone (a killed flush) are looked for and returned. */
const CLAIM_RECOVERY_MS = 30_000;
/** While the journal is busy, the status log is rewritten this often (it says so). */
const BUSY_STATUS_MS = 5000;
/** A prune under way when the daemon stops ends between two of its chunks. */
class PruneStopped extends Error {}

/** User backups deleted per step of the retention (each holds fingerprint templates, its pages zeroed). */
const BACKUP_PRUNE_CHUNK = 500;

/** A prune that met a busy journal is tried again after this long. */
const PRUNE_RETRY_MS = 60_000;
/** How often the box clock is compared with the monotonic clock (a step is seen within this). */
const CLOCK_CHECK_MS = 1000;

export interface DaemonOptions {
  configPath: string;
  /** Which config runs and whether its file loads (made at start: ConfigWatch.startWith); default: one for configPath. */
  configWatch?: ConfigWatch;
  notifier: Notifier;
  /** Tests replace how sources are built (e.g. a manual schedule). */
  sourceFactory?: SourceFactory;
  /** Called once on a fatal condition (journal unwritable, disk full): the process must exit. */
  onFatal: (err: unknown) => void;
  /** The senders of sink kinds beyond the seed HRMS (Frappe, Odoo), where this build has them. */
  sinkMakers?: SinkMakers;
  /** The journal's checkpoints in a worker thread (default; tests turn it off or make it fail). */
  checkpointInWorker?: JournalOptions['checkpointInWorker'];
}

/**
 * `punchgate run`: terminals -> sources -> journal -> delivery -> HRMS in one process.
 * Collection never waits on delivery: sources write to the journal, and the delivery
 * loop drains it on its own schedule, so an HRMS outage only grows the journal.
 */
export class Daemon {
  private config: Config;
  private readonly journal: Journal;
  /** A delivery loop per sink (deliveries.ts). */
  private readonly deliveries: SinkDeliveries;
  private readonly sources: SourceSet;
  private readonly deps: SourceDeps;
  /** The push terminal receiver (adms.listen), shared by every push terminal's source. */
  private pushReceiver: AdmsReceiver | undefined;
  private readonly statusLog: StatusLog;
  private readonly configWatch: ConfigWatch;
  /** Steps of the box's wall clock (schedules re-armed, punch times judged with them, the status says so). */
  private readonly clockSteps: ClockStepWatch;
  /** The event loop's delay, and stalls said with what ran (labelled tasks). */
  private readonly loop: EventLoopWatch;
  /** How long the journal's disk takes to sync (the status, and its alert on a disk going bad). */
  private readonly diskSyncs = new DiskSyncWatch();
  /** The status page, /metrics and the health endpoints (status.listen). */
  readonly web: StatusWeb;
  private timers: NodeJS.Timeout[] = [];
  /** Batches sent since the last hourly sample that got no usable answer. */
  private failedRequests = 0;
  private busyTimer: NodeJS.Timeout | undefined;
  private started = false;
  /** When start() began (epoch ms): push terminals have their first interval from then to call (status/push.ts). */
  private startedAt: number | undefined;
  private stopping: Promise<void> | undefined;
  /** The reload under way (SIGHUP), and whether another SIGHUP came during it. */
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;

  private readonly opts: DaemonOptions;

  constructor(
    private readonly ctx: AppContext,
    given: DaemonOptions,
  ) {
    // Every fatal end passes here: a journal file found deleted is saved first (journal.ts).
    const opts: DaemonOptions = {
      ...given,
      onFatal: (e) => given.onFatal((this.journal as Journal | undefined)?.saveBeforeExit() ?? e),
    };
    this.opts = opts;
    this.config = ctx.config;
    const c = ctx.config;
    this.configWatch =
      opts.configWatch ??
      new ConfigWatch(opts.configPath, c.journal.path, {
        clock: ctx.clock,
        logger: ctx.logger,
        checkTerminal: checkTerminalConfig,
      });
    // A journal that ran here and is gone, or a disk that did not come up: never a new, empty one.
    const place = journalPlaceProblem(c.journal.path, c.status.path);
    if (place) throw place;
    this.journal = Journal.open({
      path: c.journal.path,
      site: c.site,
      clock: ctx.clock,
      mode: 'owner',
      busyTimeoutMs: DAEMON_BUSY_TIMEOUT_MS,
      // An older journal's upgrade at the first start of a new version: on a large journal and a
      // slow card one step may outlast systemd's start timeout, and then be killed and rolled back
      // at every start, for ever (the service down). Each step extends the wait instead.
      onMigrationStep: (from, target) =>
        opts.notifier.extendTimeout(
          MIGRATION_STEP_ALLOWANCE_MS,
          `upgrading the journal to schema ${target}: step ${from + 1} of ${target}`,
        ),
      // Checkpoints off the event loop (issue 35).
      checkpointInWorker: opts.checkpointInWorker ?? true,
      scrub: (text) => ctx.secrets.scrub(text),
      logger: ctx.logger,
      onFatal: (e) => opts.onFatal(e),
      onBusyChange: (since) => this.busyChanged(since),
      retentionDays: c.journal.retentionDays,
      futureToleranceMinutes: c.journal.futureToleranceMinutes,
      pastToleranceHours: c.journal.pastToleranceHours,
      rejectedRetry: c.delivery.rejectedRetry,
      deadAfterAttempts: c.delivery.deadAfterAttempts,
      deadAfterDays: c.delivery.deadAfterDays,
    });
    // Only now, with the journal's lock taken, is the config this process runs kept beside it.
    this.configWatch.ownsJournal();
    this.clockSteps = new ClockStepWatch(ctx.clock);
    this.loop = new EventLoopWatch(
      ctx.logger,
      () => ctx.clock.now(),
      undefined,
      () => this.config.status.intervalMs,
    );
    this.clockSteps.onStep((s) => this.clockStepped(s));
    this.journal.onDiskSync(this.diskSyncs.record);
    const ledger = this.journal.terminals;
    // Every journal write (sources, push terminals, event streams) judges punch times with the box
    // clock's recent step: a push terminal's punches after a step back are not "in the future".
    this.journal.followBoxClockSteps(() => this.clockSteps.recent().reduce((n, s) => n + s.deltaMs, 0));
    /** A source's journal write, labelled. */
    const write = <T>(p: readonly Punch[], o: IngestOptions | undefined, fn: (o: IngestOptions | undefined) => T): T =>
      this.loop.run(`journal write (${p[0]?.terminal ?? 'punches'})`, () => this.guard(() => fn(o)));
    const deps: SourceDeps = {
      sink: {
        ingest: (p, o) => write(p, o, (opts) => this.journal.ingest(p, opts)),
        ingestSyncedLater: (p, o) => write(p, o, (opts) => this.journal.ingestSyncedLater(p, opts)),
      },
      ledger: {
        get: (name) => ledger.get(name),
        // Status figures, written again at the next poll: never a disk sync on the event loop.
        update: (name, patch) => this.guard(() => this.journal.syncedApart(() => ledger.update(name, patch))),
      },
      deliveryCheck: this.journal.queries,
      cards: {
        remapUnknownCards: (terminal, lookup) =>
          this.loop.run(`code map remap (${terminal})`, () =>
            this.guard(() => this.journal.queries.remapUnknownCards(terminal, lookup)),
          ),
      },
      state: this.journal.sourceState,
      logger: ctx.logger,
      clock: ctx.clock,
      onPunches: () => this.deliveries.wake(),
      configKey: (name) => configKeyIn(this.config, name),
      clockSteps: this.clockSteps,
      serialHandover: new SerialPortHandover(),
    };
    this.deps = deps;
    if (c.adms) this.attachPushReceiver(c.adms);
    this.sources = new SourceSet(opts.sourceFactory ?? createSource, deps, ctx.logger);
    const reports = new LatestReport(
      () => this.status(),
      () => elapsedMs(ctx.clock),
    );
    this.statusLog = new StatusLog(
      c.status.path!,
      () => {
        const report = reports.fresh();
        this.sampleHourly(report);
        return report;
      },
      { ...ctx, run: (label, fn) => this.loop.run(label, fn) },
    );
    this.web = new StatusWeb({
      journal: this.journal,
      config: () => this.config,
      reports,
      live: () => this.healthy(),
      ctx,
      pushListener: () => this.pushReceiver?.listenerFact(),
      // A status page that cannot take its port is an alert of the status log at once (not after status.intervalMs).
      onListenChange: () => {
        if (this.started && !this.stopping) this.statusLog.write();
      },
    });
    this.deliveries = new SinkDeliveries({
      journal: this.journal,
      ctx,
      defaultQueue: () => this.web.watch(labelledQueue(this.journal, this.loop)),
      wrapQueue: (q) => labelledQueue(q, this.loop),
      observe: (sink) => (a, n, s) => {
        this.web.observeHrms(a, n, s, sink);
        // A batch that got no usable answer, for the page's chart (probes, empty batches, are not counted).
        if (n > 0 && hrmsOutcome(a, n) !== 'ok') this.failedRequests++;
      },
      onFatal: (e) => opts.onFatal(e),
      ...(opts.sinkMakers ? { makers: opts.sinkMakers } : {}),
    });
  }

  /** The status as it is now, with what only the running daemon knows (for the status log and the page). */
  status(): StatusReport {
    // Whether the config file still loads: a stat, and a read only when it changed.
    this.configWatch.poll();
    // A journal found damaged while counting ends the process as any other fatal journal error.
    return this.loop.run('status report', () =>
      this.guard(() =>
        buildStatus(this.journal, this.config, this.ctx.clock.now(), {
          live: {
            journalBusySince: this.journal.busySince(),
            checkpoints: this.journal.checkpointState(),
            heldPunches: this.sources.held(),
            config: this.configWatch.status(),
            clockSteps: this.clockSteps.recent(),
            delivery: {
              nextTryAt: this.deliveries.default?.deliverer.nextTryAt ?? null,
              probing: this.deliveries.default?.deliverer.probing ?? false,
            },
            sinks: Object.fromEntries(
              this.deliveries.list().map((s) => [
                s.sink.name,
                {
                  nextTryAt: s.deliverer.nextTryAt,
                  probing: s.deliverer.probing,
                  ...(s.shiftSync ? { shiftSync: s.shiftSync.facts() } : {}),
                },
              ]),
            ),
            eventLoop: this.loop.figures(),
            diskSync: this.diskSyncs.figures(),
            listeners: [this.pushReceiver?.listenerFact(), this.web.listenerFact()].filter((l) => l !== undefined),
            ...(this.startedAt !== undefined ? { startedAt: this.startedAt } : {}),
          },
        }),
      ),
    );
  }

  async start(): Promise<void> {
    const { logger } = this.ctx;
    this.startedAt = this.ctx.clock.now();
    this.loop.start();
    this.prune();
    this.startDelivery();
    await this.pushReceiver?.start();
    await this.sources.apply(this.config.terminals);
    this.started = true;
    this.statusLog.start(this.config.status.intervalMs);
    await this.web.start();
    this.every(DAY_MS, () => this.prune());
    this.every(CLAIM_RECOVERY_MS, () => this.recoverClaims());
    this.every(CLOCK_CHECK_MS, () => this.clockSteps.check());
    const wd = this.opts.notifier.watchdogIntervalMs();
    if (wd) this.every(wd, () => this.healthy() && this.opts.notifier.watchdog());
    this.opts.notifier.ready(`collecting from ${this.sources.names().length} terminals`);
    logger.info(
      {
        version: punchgateVersion(),
        site: this.config.site,
        terminals: this.sources.names(),
        journal: this.config.journal.path,
      },
      'punchgate running',
    );
    warnLowDiskAtStart(this.config.journal.path, logger);
  }

  /**
   * SIGHUP: re-read the config and the token file; keep the running config if the new one is invalid.
   * One reload at a time: a SIGHUP during a reload reads the file again once that one is done (a
   * file changed back within a second ends as the file says). Two reloads side by side each applied
   * their own file, the slower one last: a terminal removed again went on being collected while the
   * status named the file in force (an adversarial trial). None once the daemon stops.
   */
  reload(): Promise<void> {
    if (this.stopping) {
      this.ctx.logger.info('SIGHUP while stopping: not reloaded (the next start reads the config)');
      return Promise.resolve();
    }
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    const run = async () => {
      try {
        do {
          this.reloadAgain = false;
          await this.reloadOnce();
        } while (this.reloadAgain && !this.stopping);
      } finally {
        this.reloading = undefined;
      }
    };
    this.reloading = run();
    return this.reloading;
  }

  private async reloadOnce(): Promise<void> {
    const { logger } = this.ctx;
    let loaded: LoadedConfig;
    try {
      loaded = loadConfigFile(this.opts.configPath, checkTerminalConfig);
    } catch (e) {
      // Said in the log (with the file's lines), and an alert on the status, the page and /metrics.
      this.configWatch.failedToLoad(e);
      this.statusLog.write();
      return;
    }
    let next = loaded.config;
    this.configWatch.loaded(loaded);
    // What a reload cannot apply waits for a restart: said in the log and, until then, the status.
    const later = restartOnlyChanges(this.config, next);
    next = keepRestartOnly(this.config, next);
    for (const s of terminalSecrets(next.terminals)) this.ctx.secrets.add(s, { runs: false });
    // The sinks, delivery's settings, which terminal goes to which sink, and what each sink is told
    // of a terminal's punches (its zone, its direction: a changed direction applies to every punch
    // still waiting, docs/direction.md; the sinks read it from the config of their last start).
    const routes = (c: Config) => [
      c.hrms,
      c.sinks,
      c.delivery,
      c.terminals.map((t) => [t.name, t.sinks, t.timezone, t.direction, t.directionStates]),
    ];
    const hrmsChanged = JSON.stringify(routes(next)) !== JSON.stringify(routes(this.config));
    this.config = next;
    this.ctx.config = next;
    this.opts.notifier.reloading();
    // Delivery held while running on the last good copy starts with the file that loads; a sink
    // that could not be built (a missing caFile) is built again, its file may be there now.
    if (hrmsChanged || !this.deliveries.running || this.deliveries.incomplete) {
      await this.stopDelivery();
      this.startDelivery();
    }
    later.push(...(await this.reloadPushReceiver(next)));
    this.configWatch.waitForRestart(later);
    if (later.length > 0) logger.warn({ keys: later }, alertLine(ALERT.restartPending(this.configWatch.file, later)));
    await this.sources.apply(next.terminals);
    await this.web.reload();
    this.statusLog.write();
    this.opts.notifier.ready(`collecting from ${this.sources.names().length} terminals`);
    logger.info({ terminals: this.sources.names() }, 'config reloaded');
  }

  /** Stops collecting, abandons an in-flight request safely (its punches go back to pending), closes the journal. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.opts.notifier.stopping();
      // A reload under way finishes first: it must not start a source or a sink after the stop.
      await this.reloading?.catch(() => undefined);
      for (const t of this.timers) clearInterval(t);
      this.timers = [];
      clearInterval(this.busyTimer);
      await this.web.stop();
      // Sources hand the journal what they still hold (waiting a while if it is busy).
      await this.sources.stopAll();
      await this.pushReceiver?.stop();
      await this.stopDelivery();
      this.statusLog.stop();
      this.statusLog.write();
      // Read before the journal closes: what a stop leaves behind, said with the stop itself.
      const left = leftBehind(this.journal, this.config);
      this.journal.close();
      this.loop.stop();
      this.ctx.logger.info(left.counts, `punchgate stopped: ${left.words}`);
    })();
    return this.stopping;
  }

  private attachPushReceiver(adms: NonNullable<Config['adms']>): void {
    const wake = () => this.deliveries.wake();
    const bounded = boundByFileHandles(adms, this.config.terminals.length, openFilesLimit());
    if (bounded.shortage) {
      const a = fileHandlesShort(bounded.shortage);
      this.ctx.logger.warn({ ...bounded.shortage }, `${a.cause}: ${a.fix}`);
    }
    // Its journal work under a label: a long group commit is named if it holds the event loop.
    this.pushReceiver = createPushReceiver(
      bounded.adms,
      this.journal,
      this.ctx,
      (fn) => this.loop.run('push terminals (journal)', () => this.guard(fn)),
      wake,
      () => this.listenerChanged(),
      bounded.shortage,
    );
    this.deps.pushReceiver = this.pushReceiver;
    this.deps.listeners = this.pushReceiver;
  }

  /**
   * A reload keeps the receiver and its connections: new delays and limits apply, a new port only
   * after a restart. Returns the adms settings that wait for a restart.
   */
  private async reloadPushReceiver(next: Config): Promise<string[]> {
    if (!next.adms) return this.pushReceiver ? ['adms (its removal)'] : [];
    if (!this.pushReceiver) {
      this.attachPushReceiver(next.adms);
      await this.pushReceiver!.start();
      return [];
    }
    return this.pushReceiver.configure(next.adms);
  }

  private startDelivery(): void {
    // On the last good copy while the file names another HRMS (or its address cannot be read):
    // nothing is sent to an address the admin may have left (config/fallback.ts); a reload ends it.
    const held = this.configWatch.deliveryHeld();
    if (held) {
      this.ctx.logger.error(`delivery is held: ${held}; correct the config file, then systemctl reload punchgate`);
      return;
    }
    this.deliveries.start(this.config);
  }

  private async stopDelivery(): Promise<void> {
    await this.deliveries.stop();
  }

  /** At each status write: the queue's size and the failed requests, kept per hour for the page's charts. */
  private sampleHourly(report: StatusReport): void {
    try {
      this.guard(() =>
        this.journal.hourly.record(this.ctx.clock.now(), {
          queue: report.punches.pending + report.punches.inflight,
          failedRequests: this.failedRequests,
        }),
      );
      this.failedRequests = 0;
    } catch (e) {
      if (!isBusyJournalError(e)) this.ctx.logger.warn({ err: messageOf(e) }, 'could not keep the hourly figures');
    }
  }

  /** The watchdog is fed only while the journal answers and no HRMS request hangs past its deadline. */
  private healthy(): boolean {
    try {
      this.journal.dueCount();
    } catch {
      return false;
    }
    return !this.deliveries.hung(elapsedMs(this.ctx.clock));
  }

  /**
   * The box clock stepped: said as such in the log and the status at once. Timers run on the
   * monotonic clock; cron schedules re-arm themselves (SourceDeps.clockSteps); refused punches'
   * retry times in the journal move back with a step back.
   */
  private clockStepped(s: ClockStep): void {
    const behind = this.clockSteps.behindMs();
    this.ctx.logger.warn(
      { stepSeconds: Math.round(s.deltaMs / 1000), behindSeconds: Math.round(behind / 1000) },
      `${describeStep(s)} (its wall clock against its monotonic clock): schedules re-armed${behind > 0 ? '; terminal times that far ahead of the box are not held against the terminals' : ''}`,
    );
    try {
      // Kept by the journal and done once it is free when another process holds it.
      this.guard(() => this.journal.clockStepped(s.deltaMs));
    } catch (e) {
      this.ctx.logger.error({ err: String(e) }, 'could not move retry times after the clock step');
    }
    this.deliveries.wake();
    if (this.started && !this.stopping) this.statusLog.write();
  }

  /**
   * The retention: delivered punches past it go, in chunks with the event loop served between
   * them (a first prune after a long time off may have many to delete).
   */
  private prune(): void {
    void this.pruneNow();
  }

  private async pruneNow(): Promise<void> {
    const days = this.config.terminalUsers.backupRetentionDays;
    let punches: number;
    let backups: number;
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    try {
      punches = await this.journal.pruneInSteps(
        async () => {
          await pause();
          if (this.stopping) throw new PruneStopped();
        },
        (fn) => this.loop.run('retention', fn),
      );
      // Backups of users removed from terminals hold fingerprint templates: they go after their
      // retention, a chunk at a time like the punches (each deleted backup's pages are zeroed).
      const store = new UserBackupStore(this.journal.db, () => this.ctx.clock.now());
      backups = 0;
      for (let n = BACKUP_PRUNE_CHUNK; n === BACKUP_PRUNE_CHUNK;) {
        n = this.loop.run('retention (user backups)', () => this.guard(() => store.prune(days, BACKUP_PRUNE_CHUNK)));
        backups += n;
        await pause();
        if (this.stopping) throw new PruneStopped();
      }
    } catch (e) {
      if (e instanceof PruneStopped) return;
      if (isFatalJournalError(e)) {
        this.opts.onFatal(e);
        return;
      }
      // Another process holds the journal: the retention can wait.
      if (!isBusyJournalError(e)) this.ctx.logger.error({ err: String(e) }, 'could not prune the journal');
      const t = setTimeout(() => this.prune(), PRUNE_RETRY_MS);
      t.unref();
      return;
    }
    if (punches > 0)
      this.ctx.logger.info(
        { deleted: punches, retentionDays: this.config.journal.retentionDays },
        'delivered punches past the retention removed',
      );
    if (backups > 0)
      this.ctx.logger.info({ deleted: backups, retentionDays: days }, 'user backups past the retention removed');
  }

  /** Claims of a process that is gone (a killed flush) go back to the queue, and delivery looks at once. */
  private recoverClaims(): void {
    try {
      if (this.loop.run('claim recovery', () => this.guard(() => this.journal.recoverStaleClaims())) > 0)
        this.deliveries.wake();
    } catch (e) {
      if (!isBusyJournalError(e)) this.ctx.logger.error({ err: String(e) }, 'could not look for stale claims');
    }
  }

  /** A port it listens on was lost or taken again: the status, the page and /metrics say so now, not at the next interval. */
  private listenerChanged(): void {
    if (this.started && !this.stopping) this.statusLog.write();
  }

  /** While the journal is busy the status log says so, updated every few seconds; and once more when it is free. */
  private busyChanged(since: number | null): void {
    clearInterval(this.busyTimer);
    this.busyTimer = undefined;
    if (!this.started) return;
    if (since === null) {
      if (!this.stopping) this.statusLog.write();
      return;
    }
    this.busyTimer = setInterval(() => this.statusLog.write(), BUSY_STATUS_MS);
    this.busyTimer.unref();
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
