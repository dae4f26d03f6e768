/**
 * The working batch size: halved on HTTP 413 (floor 1), doubled back towards the configured
 * size after a run of successful full batches, so a lowered HRMS limit costs little and a
 * raised one is found again.
 */
export class BatchSizer {
  private size: number;
  private successes = 0;

  constructor(
    private readonly max: number,
    /** Successful full batches before the size is allowed to grow again. */
    private readonly growAfter = 20,
  ) {
    this.size = max;
  }

  get current(): number {
    return this.size;
  }

  /** After HTTP 413 for a request of `sent` punches: half of that (floor 1). Returns the new size. */
  shrink(sent = this.size): number {
    this.size = Math.max(1, Math.floor(Math.min(this.size, sent) / 2));
    this.successes = 0;
    return this.size;
  }

  /** A batch was answered; `full` when it used the whole working size. */
  succeeded(full: boolean): void {
    if (this.size >= this.max || !full) return;
    if (++this.successes >= this.growAfter) {
      this.size = Math.min(this.max, this.size * 2);
      this.successes = 0;
    }
  }
}
