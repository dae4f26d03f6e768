import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { printable } from '../../util/terminal-text.js';

/**
 * Logs malformed lines without flooding the log: the first one at once, then at most one
 * line per window with the count of what was left out and one sample.
 */
export class NoiseLog {
  private lastLogAt: number | null = null;
  private held = 0;
  private sample: { reason: string; line: string } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** `logger`: the source's, which names the terminal already (a second `terminal` key doubled it in JSON). */
    private readonly deps: { logger: Logger; clock: Clock },
    private readonly windowMs = 10_000,
  ) {}

  note(reason: string, line: string): void {
    const now = this.deps.clock.now();
    this.held++;
    this.sample = { reason, line };
    if (this.lastLogAt === null || now - this.lastLogAt >= this.windowMs) {
      this.flush();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.lastLogAt + this.windowMs - now);
      this.timer.unref();
    }
  }

  /** Logs what is held back now (also called when the source stops). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.held === 0 || !this.sample) return;
    this.deps.logger.warn(
      {
        count: this.held,
        reason: this.sample.reason,
        sample: printable(this.sample.line),
      },
      this.held === 1 ? 'malformed line from serial terminal' : `${this.held} malformed lines from serial terminal`,
    );
    this.lastLogAt = this.deps.clock.now();
    this.held = 0;
    this.sample = null;
  }
}
