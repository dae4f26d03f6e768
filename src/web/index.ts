import type { Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import type { AttendanceAnswer } from '../hrms/attendance.js';
import type { HourlySeries } from '../journal/hourly-stats.js';
import type { Journal } from '../journal/journal.js';
import { withTakeIn, withTogether } from '../journal/together.js';
import type { DeliveryQueue } from '../journal/types.js';
import { JournalTotals } from '../metrics/journal-totals.js';
import { PunchgateMetrics } from '../metrics/registry.js';
import type { LatestReport } from '../status/latest.js';
import { boxZoneLabel } from '../util/box-zone.js';
import type { ListenerFact } from '../util/listener-fact.js';
import { punchgateVersion } from '../util/version.js';
import { defaultCredential } from '../status/credential.js';
import { listenerNotReady, notReadyReasons } from './readiness.js';
import { StatusServer } from './server.js';

export interface StatusWebDeps {
  journal: Journal;
  /** The running config (it changes on reload). */
  config: () => Config;
  reports: LatestReport;
  /** The daemon's own health test (the systemd watchdog's): its loops make progress. */
  live: () => boolean;
  ctx: Pick<AppContext, 'logger' | 'clock' | 'secrets'>;
  /** The push terminal receiver's port, when `adms.listen` is set: not listening is not ready. */
  pushListener?: () => ListenerFact | undefined;
  /** The status page could not take `status.listen`, or takes it again: the status log is rewritten at once. */
  onListenChange?: () => void;
}

/** A person reloading the page, or several, share one report per second. */
const PAGE_REPORT_MAX_AGE_MS = 1000;
/** The charts' figures (a day of the journal, read by row range) are read again at most this often. */
const CHARTS_MAX_AGE_MS = 60_000;
/** How often the punches journalled since are counted for /metrics, a bounded step per turn. */
const COUNT_EVERY_MS = 1000;

/**
 * The status page, /status.json, /metrics, /livez and /readyz of `punchgate run`: the HTTP
 * server and the metrics it serves, started and stopped by the daemon. Nothing here is on the
 * punch line: the daemon hands it the journal to read, and tells it about HRMS requests and
 * settled punches through `observeHrms` and `watch`.
 */
export class StatusWeb {
  private metrics: PunchgateMetrics | undefined;
  private totals: JournalTotals | undefined;
  private readonly server: StatusServer;
  private readonly startedAt: number;
  private charts: { series: HourlySeries; at: number } | undefined;
  private counting: NodeJS.Timeout | undefined;
  private countingNow = false;

  constructor(private readonly d: StatusWebDeps) {
    this.startedAt = d.ctx.clock.now();
    const version = punchgateVersion();
    // Every string of the report scrubbed (the page, /status.json); those it had last time not read again.
    const scrub = d.ctx.secrets.reports();
    this.server = new StatusServer({
      config: () => d.config().status,
      report: () => scrub(d.reports.get(PAGE_REPORT_MAX_AGE_MS)),
      pageInfo: () => ({
        version,
        uptimeSeconds: Math.max(0, (d.ctx.clock.now() - this.startedAt) / 1000),
        zone: boxZoneLabel(d.ctx.clock.now()),
        refreshSeconds: d.config().status.refreshSeconds,
      }),
      charts: () => this.chartSeries(),
      metrics: {
        text: () => this.ensureMetrics().text(),
        contentType: () => this.ensureMetrics().contentType,
      },
      live: d.live,
      notReady: () => [
        ...notReadyReasons(d.journal, d.config().journal.path, defaultCredential(d.config())),
        ...listenerNotReady(d.pushListener?.()),
      ],
      logger: d.ctx.logger,
      secrets: d.ctx.secrets,
      now: () => d.ctx.clock.now(),
      ...(d.onListenChange ? { onListenChange: d.onListenChange } : {}),
    });
    if (d.config().status.listen !== false) this.ensureMetrics();
  }

  /** The figures per hour of the page's charts, read at most once a minute; none when they cannot be read. */
  private chartSeries(): HourlySeries | undefined {
    const now = this.d.ctx.clock.now();
    const c = this.charts;
    if (c && now - c.at < CHARTS_MAX_AGE_MS && now >= c.at) return c.series;
    try {
      this.charts = { series: this.d.journal.hourly.series(now), at: now };
    } catch (e) {
      // A busy or failing journal costs the page its charts, never the page itself.
      this.d.ctx.logger.debug({ err: e instanceof Error ? e.message : String(e) }, 'could not read the charts');
      return c?.series;
    }
    return this.charts.series;
  }

  /** Whether the status page listens on `status.listen` now (none when that is false). */
  listenerFact(): ListenerFact | undefined {
    return this.server.listenerFact();
  }

  /** The URL it listens on, once it does. */
  url(): string | undefined {
    return this.server.url();
  }

  start(): Promise<void> {
    // The punches journalled since the last count, counted a bounded step per turn of the event
    // loop between scrapes, so a scrape has about a second of them left to count, not all since
    // the last scrape (JournalTotals.catchUp).
    this.counting = setInterval(() => this.countSteps(), COUNT_EVERY_MS);
    this.counting.unref();
    return this.server.start();
  }

  /** Counts the new and the delivered punches for /metrics, one bounded step per turn, until none is left. */
  private countSteps(): void {
    if (this.countingNow || !this.totals) return;
    this.countingNow = true;
    const step = () => {
      let more = false;
      try {
        const totals = this.totals;
        // Both run each step (no short cut): new rows and settled punches are counted alike.
        more =
          this.counting !== undefined &&
          totals !== undefined &&
          [totals.catchUp(), totals.countSettled()].some(Boolean);
      } catch (e) {
        // A busy or failing journal: the next scrape or the next second counts them.
        this.d.ctx.logger.debug({ err: e instanceof Error ? e.message : String(e) }, 'could not count new punches');
      }
      if (more) setImmediate(step);
      else this.countingNow = false;
    };
    step();
  }

  async reload(): Promise<void> {
    if (this.d.config().status.listen !== false) this.ensureMetrics();
    await this.server.reload();
  }

  stop(): Promise<void> {
    clearInterval(this.counting);
    this.counting = undefined;
    return this.server.stop();
  }

  /** Counts one HRMS attendance request for /metrics. */
  observeHrms(answer: AttendanceAnswer | undefined, sent: number, durationSeconds: number, sink?: string): void {
    this.metrics?.observeHrms(answer, sent, durationSeconds, sink);
  }

  /** The delivery queue, with the punches it settles as delivered counted for /metrics. */
  watch(queue: DeliveryQueue): DeliveryQueue {
    return {
      claim: (limit, opts) => queue.claim(limit, opts),
      settle: (outcomes) => {
        queue.settle(outcomes);
        try {
          this.totals?.settled(outcomes);
        } catch {
          // A count that could not be read never disturbs delivery: the next start counts again.
        }
      },
      release: (ids) => queue.release(ids),
      ...withTogether(queue),
      ...withTakeIn(queue),
      nextDueAt: () => queue.nextDueAt(),
      dueCount: (opts) => queue.dueCount(opts),
    };
  }

  /** The metrics, made the first time they are needed (their starting counts read the journal once). */
  private ensureMetrics(): PunchgateMetrics {
    if (!this.metrics) {
      this.totals = new JournalTotals(this.d.journal.queries);
      this.metrics = new PunchgateMetrics({
        journal: this.d.journal,
        config: this.d.config,
        reports: this.d.reports,
        totals: this.totals,
        clock: this.d.ctx.clock,
        version: punchgateVersion(),
      });
    }
    return this.metrics;
  }
}
