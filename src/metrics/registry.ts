import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config/schema.js';
import { sinksOf } from '../config/sinks.js';
import type { AttendanceAnswer } from '../hrms/attendance.js';
import type { Journal } from '../journal/journal.js';
import { credentialTrouble } from '../delivery/credential-trouble.js';
import type { DeliveryRecord } from '../journal/types.js';
import type { StatusReport } from '../status/index.js';
import type { LatestReport } from '../status/latest.js';
import type { Clock } from '../util/clock.js';
import { seconds } from './exposition.js';
import { HRMS_OUTCOMES, hrmsOutcome } from './hrms-outcome.js';
import type { JournalTotals } from './journal-totals.js';
import { pushRegistryLines } from './registry-text.js';
import { label, TerminalSeries } from './terminal-series.js';

/** prom-client's default gauges named like counters (see the constructor). */
const NOT_COUNTERS_NAMED_TOTAL = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

export interface MetricsDeps {
  journal: Journal;
  /** The running config (it changes on reload). */
  config: () => Config;
  reports: LatestReport;
  totals: JournalTotals;
  clock: Clock;
  version: string;
}

/**
 * Each sink's punch counts as the status report has them: its `sinks` where there is more than one
 * sink, else the report's own counts, which are the one sink's.
 */
function sinkQueues(report: StatusReport, config: Config): { sink: string; punches: StatusReport['punches'] }[] {
  if (report.sinks && report.sinks.length > 0)
    return report.sinks.map((s) => ({ sink: label(s.name), punches: s.punches }));
  const first = sinksOf(config)[0];
  return first ? [{ sink: label(first.name), punches: report.punches }] : [];
}

/** Slack on top of the status log's interval (at most one interval) before /metrics builds a report of its own. */
const REPORT_SLACK_MS = 5000;

/**
 * Sets a gauge without labels, or leaves it with no sample at all when there is no value: the
 * series is absent, as the docs say. (prom-client's reset() of a gauge without labels leaves a
 * sample 0, which read "failing since 1970" and fired PunchgateDeliveryFailing on healthy boxes.)
 */
function setOrAbsent(gauge: Gauge, value: number | undefined): void {
  gauge.reset();
  if (value === undefined) gauge.remove({});
  else gauge.set(value);
}

/**
 * The Prometheus metrics of `punchgate run` (/metrics). Every figure is read when scraped from
 * where `punchgate status` reads it: the journal's terminal ledger and delivery state (live), the
 * status report the status log last built (queue counts, rebuilt at the status log's cadence,
 * so the scrape and the status show the same figures), and the journal totals (JournalTotals). Only the
 * HRMS request counts live in this process alone (they start at 0 with it).
 */
export class PunchgateMetrics {
  readonly registry = new Registry();
  private readonly hrmsRequests: Counter<'outcome' | 'sink'>;
  private readonly hrmsDuration: Histogram<'sink'>;

  /** What one scrape reads, read once for all the metrics of that scrape. */
  private scrape: Scrape | undefined;
  private readonly terminalSeries = new TerminalSeries();

  constructor(private readonly d: MetricsDeps) {
    const registers = [this.registry];
    const read = () => this.scrape ?? this.read();

    new Gauge({
      name: 'punchgate_journal_punches',
      help: "Punches in the journal by state: pending (waiting or being sent), refused (by the HRMS, retried later), dead, quarantined, not_routed (never meant for the first sink: their terminal's sinks: leaves it out; not sent to it).",
      labelNames: ['state'],
      registers,
      collect() {
        const p = read().report.punches;
        this.set({ state: 'pending' }, p.pending + p.inflight);
        this.set({ state: 'refused' }, p.rejected);
        this.set({ state: 'dead' }, p.dead);
        this.set({ state: 'quarantined' }, p.quarantined);
        this.set({ state: 'not_routed' }, p.notRouted);
      },
    });
    new Gauge({
      name: 'punchgate_sink_punches',
      help: "Each sink's punches by state: pending (waiting for it or being sent), refused (by that HRMS, retried later), dead, quarantined, not_routed (never meant for that sink, not sent to it).",
      labelNames: ['sink', 'state'],
      registers,
      collect() {
        // punchgate_journal_punches is the default sink's queue only: a second HRMS refusing or
        // owed punches showed nowhere in /metrics. Read where the status's "Sinks" lines are read.
        this.reset();
        for (const { sink, punches: p } of sinkQueues(read().report, d.config())) {
          this.set({ sink, state: 'pending' }, p.pending + p.inflight);
          this.set({ sink, state: 'refused' }, p.rejected);
          this.set({ sink, state: 'dead' }, p.dead);
          this.set({ sink, state: 'quarantined' }, p.quarantined);
          this.set({ sink, state: 'not_routed' }, p.notRouted);
        }
      },
    });
    new Gauge({
      name: 'punchgate_journal_oldest_pending_age_seconds',
      help: 'How long the oldest waiting punch has been in the journal (0 when none waits).',
      registers,
      collect() {
        const { report, now } = read();
        const queuedAt = report.oldestPending?.queuedAt;
        this.set(queuedAt ? Math.max(0, (now - Date.parse(queuedAt)) / 1000) : 0);
      },
    });
    this.hrmsRequests = new Counter({
      name: 'punchgate_hrms_requests_total',
      help: 'Attendance requests to each sink (HRMS) by outcome: ok, http_error, network_error, bad_reply, token_refused.',
      labelNames: ['outcome', 'sink'],
      registers,
    });
    for (const sink of sinksOf(d.config()))
      for (const outcome of HRMS_OUTCOMES) this.hrmsRequests.inc({ outcome, sink: label(sink.name) }, 0);
    this.hrmsDuration = new Histogram({
      name: 'punchgate_hrms_request_duration_seconds',
      help: 'Time from sending an attendance request to a sink to having its answer (or giving up).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40],
      labelNames: ['sink'],
      registers,
    });
    new Gauge({
      name: 'punchgate_delivery_last_success_timestamp_seconds',
      help: 'When a batch was last delivered to each sink (Unix time); absent while none ever was.',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const s of read().sinks) {
          const at = seconds(s.lastSuccessAt);
          if (at !== undefined) this.set({ sink: s.sink }, at);
        }
      },
    });
    new Gauge({
      name: 'punchgate_hrms_token_refused',
      help: 'Whether each sink refuses its credential now (1) or not (0): the seed HRMS its token, Frappe its API key and secret, Odoo its API key; delivery to it waits until it is fixed.',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        // Only a refusal by the server: no credential to send is the metric below (nothing was sent).
        for (const s of read().sinks) this.set({ sink: s.sink }, credentialTrouble(s) === 'refused' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_hrms_token_unusable',
      help: 'Whether no usable credential can be read for each sink now (1) or one can (0): its file is missing, empty, unreadable or holds more than one line, so nothing is sent to it until it is put right.',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const s of read().sinks) this.set({ sink: s.sink }, credentialTrouble(s) === 'none' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_delivery_failing_since_timestamp_seconds',
      help: 'Since when delivery to each sink has failed without a success in between (Unix time); absent while it works.',
      labelNames: ['sink'],
      registers,
      collect() {
        this.reset();
        for (const s of read().sinks) if (s.failingSince !== null) this.set({ sink: s.sink }, s.failingSince / 1000);
      },
    });
    new Gauge({
      name: 'punchgate_config_load_failed',
      help: 'Whether the config file does not load now (1) or does (0): a reload is refused, a restart runs on the last good config.',
      registers,
      collect() {
        this.set(read().report.config?.failure ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_config_load_failed_since_timestamp_seconds',
      help: 'Since when the config file does not load (Unix time; its last change); absent while it loads.',
      registers,
      collect() {
        const since = read().report.config?.failure?.since;
        setOrAbsent(this, since ? Date.parse(since) / 1000 : undefined);
      },
    });
    new Gauge({
      name: 'punchgate_config_last_good_in_use',
      help: 'Whether punchgate run runs on the last good copy of its config (1) because the file did not load at its start.',
      registers,
      collect() {
        this.set(read().report.config?.runningOn === 'last-good' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_config_restart_pending',
      help: 'How many settings of the reloaded config file take effect only after a restart (adms.listen, journal.path...); 0 when the file is fully in force.',
      registers,
      collect() {
        this.set(read().report.config?.restartPending?.length ?? 0);
      },
    });
    new Gauge({
      name: 'punchgate_config_delivery_held',
      help: 'Whether delivery is held (1) because punchgate run runs on the last good config and the broken file names another HRMS, or none that can be read.',
      registers,
      collect() {
        this.set(read().report.config?.fallback?.deliveryHeld ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_journal_filesystem_avail_bytes',
      help: 'Free space for punchgate on the file system of the journal.',
      registers,
      collect() {
        setOrAbsent(this, read().fs?.avail);
      },
    });
    new Gauge({
      name: 'punchgate_journal_filesystem_size_bytes',
      help: 'Size of the file system of the journal.',
      registers,
      collect() {
        setOrAbsent(this, read().fs?.size);
      },
    });
    // Issue 35: the disk's pace under the journal. A worn SD card syncs in hundreds of ms: every
    // push terminal's OK waits that long (PunchgateJournalDiskSlow).
    const diskSync = new Histogram({
      name: 'punchgate_journal_disk_sync_seconds',
      help: "Time each disk sync of the journal's write-ahead log took (made beside the event loop; a push terminal's OK waits for one).",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    d.journal.onDiskSync((s) => diskSync.observe(s));
    // Issue 34: what the central side's alerts need beyond the above (contrib/prometheus/alerts.yml).
    new Gauge({
      name: 'punchgate_journal_busy_since_timestamp_seconds',
      help: 'Since when another process has kept punchgate run from writing to the journal (Unix time); absent while it is free.',
      registers,
      collect() {
        const since = read().report.journal.busySince;
        setOrAbsent(this, since ? Date.parse(since) / 1000 : undefined);
      },
    });
    new Gauge({
      name: 'punchgate_journal_held_punches',
      help: 'Punches punchgate run holds in memory until the journal takes them (0 while it writes).',
      registers,
      collect() {
        this.set(read().report.journal.heldPunches);
      },
    });
    new Gauge({
      name: 'punchgate_box_clock_steps',
      help: "Steps of the box's wall clock (against its monotonic clock) in the last 24 hours.",
      registers,
      collect() {
        this.set(read().report.boxClock?.steps.length ?? 0);
      },
    });
    new Gauge({
      name: 'punchgate_box_clock_behind_seconds',
      help: 'How far the box clock is now behind where it ran before its recent steps (0 when it is not).',
      registers,
      collect() {
        this.set(read().report.boxClock?.behindSeconds ?? 0);
      },
    });
    new Gauge({
      name: 'punchgate_backup_last_timestamp_seconds',
      help: 'When `punchgate backup` last wrote a backup of this journal (Unix time, from its record beside the journal); absent while none is recorded on the box.',
      registers,
      collect() {
        const at = read().report.backup?.lastAt;
        setOrAbsent(this, at ? Date.parse(at) / 1000 : undefined);
      },
    });
    new Gauge({
      name: 'punchgate_backup_overdue',
      help: 'Whether the status alerts on the backups (1) or not (0): the last backup older than journal.backupAlertAfterDays, or its record unreadable. 0 while no backup was ever recorded on the box.',
      registers,
      collect() {
        const overdue = read().report.alertItems.some((a) => a.kind === 'backup-old' || a.kind === 'backup-unknown');
        this.set(overdue ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_status_alerts',
      help: 'How many alerts the status page shows now (each with its cause and fix there).',
      registers,
      collect() {
        this.set(read().report.alertItems.length);
      },
    });
    new Gauge({
      name: 'punchgate_listener_up',
      help: 'Whether punchgate run listens on its port (1) or cannot take it and keeps trying (0): listener push (adms.listen, the push terminal receiver), status (status.listen).',
      labelNames: ['listener'],
      registers,
      collect() {
        this.reset();
        for (const l of read().report.listeners ?? []) this.set({ listener: l.listener }, l.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'punchgate_push_refused_requests',
      help: 'Push requests refused, as the status shows them: unknown serials and serials from outside their allowFrom (last 24 h), and requests with a terminal serial from another address than its trusted one. One series per reason, however many serials, addresses or tables a device invents.',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        const { report } = read();
        const sum = (reason: string) =>
          (report.pushRefusals ?? []).filter((r) => r.reason === reason).reduce((n, r) => n + r.count, 0);
        this.set({ reason: 'unknown-serial' }, sum('unknown'));
        this.set({ reason: 'outside-allowfrom' }, sum('address'));
        this.set(
          { reason: 'other-address' },
          report.terminals.reduce((n, t) => n + (t.push?.otherAddress?.count ?? 0), 0),
        );
      },
    });
    new Gauge({
      name: 'punchgate_build_info',
      help: 'The running punchgate version (always 1).',
      labelNames: ['version'],
      registers,
    }).set({ version: d.version }, 1);
    collectDefaultMetrics({ register: this.registry });
    // Gauges whose names end in _total, which Prometheus keeps for counters: `promtool check
    // metrics` flags them (exit 3) on a fleet admin's first check. Each is the sum of its
    // by-type family beside it (nodejs_active_handles...), which stays.
    for (const name of NOT_COUNTERS_NAMED_TOTAL) this.registry.removeSingleMetric(name);
  }

  /** Counts one attendance request: what it ended in, and how long it took. */
  observeHrms(answer: AttendanceAnswer | undefined, sent: number, durationSeconds: number, sink = 'hrms'): void {
    this.hrmsRequests.inc({ outcome: hrmsOutcome(answer, sent), sink: label(sink) });
    this.hrmsDuration.observe({ sink: label(sink) }, durationSeconds);
  }

  /** The Prometheus text exposition: prom-client's families (pushRegistryLines), then the per-terminal ones (TerminalSeries). */
  async text(): Promise<string> {
    const scrape = this.read();
    this.scrape = scrape;
    try {
      // One array of lines joined once: the text is made flat at once, not copied again for its length and its bytes.
      const lines: string[] = [];
      await pushRegistryLines(this.registry, lines);
      this.terminalSeries.write(lines, scrape);
      lines.push('');
      return lines.join('\n');
    } finally {
      this.scrape = undefined;
    }
  }

  /** Everything a scrape shows, each source read once (the ledger of 200 terminals is one query). */
  private read(): Scrape {
    const d = this.d;
    const records = new Map(d.journal.terminals.contacts().map((r) => [r.name, r]));
    const report = d.reports.get(this.reportMaxAgeMs());
    return {
      now: d.clock.now(),
      report,
      terminals: d
        .config()
        .terminals.filter((t) => t.enabled)
        .map((t) => ({ name: t.name, record: records.get(t.name) })),
      sinks: sinkFigures(d.config(), d.journal.deliveryState.get(), report),
      journaled: d.totals.journaledByTerminal(),
      delivered: d.totals.deliveredByTerminal(),
      fs: journalFs(d.config().journal.path),
    };
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private reportMaxAgeMs(): number {
    const interval = this.d.config().status.intervalMs || 60_000;
    return interval + Math.min(interval, REPORT_SLACK_MS);
  }
}

interface Scrape {
  now: number;
  report: StatusReport;
  /** The enabled terminals of the config, with what the ledger last recorded of each (any kind). */
  terminals: { name: string; record: { online: boolean; lastSuccessAt: number | null } | undefined }[];
  /** Each sink's delivery state: the default sink's live from the journal, the others' as the status report has them. */
  sinks: {
    sink: string;
    auth: DeliveryRecord['auth'];
    /** Tells no usable credential from a refused one (credentialTrouble). */
    lastError: string | null;
    lastSuccessAt: number | null;
    failingSince: number | null;
  }[];
  journaled: ReadonlyMap<string, number>;
  delivered: ReadonlyMap<string, number>;
  fs: { avail: number; size: number } | undefined;
}

function journalFs(journalPath: string): { avail: number; size: number } | undefined {
  try {
    const s = statfsSync(dirname(journalPath));
    return { avail: s.bavail * s.bsize, size: s.blocks * s.bsize };
  } catch {
    return undefined;
  }
}

/** Each sink's delivery figures for a scrape (see Scrape.sinks). */
function sinkFigures(config: Config, live: DeliveryRecord, report: StatusReport): Scrape['sinks'] {
  const sinks = sinksOf(config);
  const at = (iso: string | null) => (iso === null ? null : Date.parse(iso));
  return sinks.map((s, i) => {
    if (i === 0)
      return {
        sink: label(s.name),
        auth: live.auth,
        lastError: live.lastError,
        lastSuccessAt: live.lastSuccessAt,
        failingSince: at(report.delivery.failingSince),
      };
    const r = report.sinks?.find((x) => x.name === s.name)?.delivery;
    return {
      sink: label(s.name),
      auth: r?.auth ?? 'unknown',
      lastError: r?.lastError ?? null,
      lastSuccessAt: at(r?.lastSuccessAt ?? null),
      failingSince: at(r?.failingSince ?? null),
    };
  });
}
