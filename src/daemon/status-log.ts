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
  /** Each file scrubbed a line at a time, the lines it had last time not read again (secrets.ts). */
  private readonly scrubJson: (text: string) => string;
  private readonly scrubText: (text: string) => string;

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
    this.scrubJson = deps.secrets.lines();
    this.scrubText = deps.secrets.lines();
  }

  start(intervalMs: number): void {
    this.write();
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.write(), intervalMs);
      this.timer.unref();
    }
  }

  /** Writes the file now; a failure is logged, never fatal (the journal is what matters). */
  write(): StatusReport | undefined {
    try {
      const report = this.build();
      const run = this.deps.run ?? ((_label, fn) => fn());
      run('status log (scrub and write)', () => {
        replaceFile(statusJsonPath(this.path), this.scrubJson(statusJson(report)));
        replaceFile(this.path, this.scrubText(formatStatus(report)));
      });
      return report;
    } catch (e) {
      this.deps.logger.warn(
        { err: e instanceof Error ? e.message : String(e), path: this.path },
        'could not write the status log',
      );
      return undefined;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Written whole, 0600 like every file beside the journal (private-file.ts), whatever the umask. */
const replaceFile = writePrivateFile;
