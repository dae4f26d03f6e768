import { formatStatus, statusJson, statusJsonPath, type StatusReport } from '../status/index.js';
import type { Logger } from '../util/logger.js';
import type { Secrets } from '../util/secrets.js';
import { writePrivateFile } from '../util/private-file.js';

/**
 * The status log: a human-readable file rewritten every interval, the first thing an admin
 * opens, and its machine-readable twin (`status.json`, which `punchgate status` reads for what
 * only the daemon knows). Written to a temporary file and renamed, so a reader never sees half a file.
 */
export class StatusLog {
  private timer: NodeJS.Timeout | undefined;
  /** Writes begun (and stops): a write in steps goes on only while it is the last one. */
  private written = 0;
  /** The report's strings scrubbed, those it had last time not read again (secrets.ts); both files are rendered from it. */
  private readonly scrub: <T>(report: T) => T;

  constructor(
    private readonly path: string,
    private readonly build: () => StatusReport,
    private readonly deps: {
      logger: Logger;
      secrets: Secrets;
      /** Runs a step under a label (the daemon's event-loop watch: what held the loop, if it was). */
      run?: <T>(label: string, fn: () => T) => T;
    },
  ) {
    this.scrub = deps.secrets.reports();
  }

  start(intervalMs: number): void {
    this.write();
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.writeInSteps(), intervalMs);
      this.timer.unref();
    }
  }

  /** Writes the file now; a failure is logged, never fatal (the journal is what matters). */
  write(): StatusReport | undefined {
    // A write in steps still under way would put its older report back after this one.
    this.written++;
    try {
      const report = this.build();
      const run = this.deps.run ?? ((_label, fn) => fn());
      run('status log (scrub and write)', () => {
        const safe = this.scrub(report);
        this.writeJson(safe);
        this.writeText(safe);
      });
      return report;
    } catch (e) {
      this.failed(e);
      return undefined;
    }
  }

  /**
   * The interval's write, in three turns of the event loop: the report (and its strings
   * scrubbed), then status.json, then the status log. At once, the three held the loop up to 90 ms
   * every interval with 240 terminals (busy-box bench, when the files were scrubbed whole);
   * between the steps the daemon serves what waited (a push terminal's OK, a scrape). A write made
   * meanwhile (reload, stop) wins: the steps left of this one are dropped.
   */
  writeInSteps(): void {
    const seq = ++this.written;
    const run = this.deps.run ?? ((_label, fn) => fn());
    let report: StatusReport;
    try {
      report = this.scrub(this.build());
    } catch (e) {
      this.failed(e);
      return;
    }
    const step = (label: string, fn: () => void, then?: () => void) =>
      setImmediate(() => {
        if (seq !== this.written) return;
        try {
          run(label, fn);
        } catch (e) {
          this.failed(e);
          return;
        }
        then?.();
      });
    step(
      'status log (status.json)',
      () => this.writeJson(report),
      () => step('status log (status.txt)', () => this.writeText(report)),
    );
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.written++;
  }

  /** `report` is the scrubbed copy: every text from outside in it is one of its strings. */
  private writeJson(report: StatusReport): void {
    replaceFile(statusJsonPath(this.path), statusJson(report));
  }

  private writeText(report: StatusReport): void {
    replaceFile(this.path, formatStatus(report));
  }

  private failed(e: unknown): void {
    this.deps.logger.warn(
      { err: e instanceof Error ? e.message : String(e), path: this.path },
      'could not write the status log',
    );
  }
}

/** Written whole, 0600 like every file beside the journal (private-file.ts), whatever the umask. */
const replaceFile = writePrivateFile;
