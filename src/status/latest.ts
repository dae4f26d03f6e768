import type { StatusReport } from './types.js';

/**
 * The last status report built, shared by the status log, the status page and /metrics, so
 * every place shows the same figures at the same moment. Building one is cheap (the counts are
 * kept by the journal, every query is on an index: test/status/report-plan.test.ts), but readers
 * that come often still take a report that is recent enough instead of building their own.
 */
export class LatestReport {
  private last: { report: StatusReport; builtAt: number } | undefined;

  constructor(
    private readonly build: () => StatusReport,
    private readonly now: () => number,
  ) {}

  /** A report built now (the status log's cadence). */
  fresh(): StatusReport {
    const report = this.build();
    this.last = { report, builtAt: this.now() };
    return report;
  }

  /** The last report if it is at most `maxAgeMs` old, else a fresh one. */
  get(maxAgeMs: number): StatusReport {
    const l = this.last;
    if (l && this.now() - l.builtAt <= maxAgeMs && this.now() >= l.builtAt) return l.report;
    return this.fresh();
  }
}
