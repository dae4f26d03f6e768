/**
 * A one-line progress bar for `employees import`, drawn on stderr only when stderr is a terminal:
 * a redirected log or a pipe gets no carriage-return noise. Redraws are limited to about ten a
 * second so a fast import does not spend its time painting.
 */

export interface Progress {
  tick(counts: Readonly<Record<string, number>>): void;
  done(): void;
}

export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  total: number;
  stream: ProgressStream;
  now?: () => number;
  /** Minimum time between redraws. */
  intervalMs?: number;
}

export const noProgress: Progress = { tick: () => undefined, done: () => undefined };

export function createProgress(opts: ProgressOptions): Progress {
  if (!opts.stream.isTTY || opts.total === 0) return noProgress;
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? 100;
  let sent = 0;
  let last = -Infinity;
  let drawn = false;
  let latest: Readonly<Record<string, number>> = {};

  const draw = () => {
    const width = Math.max(10, Math.min(40, (opts.stream.columns ?? 80) - 50));
    const counts = Object.entries(latest)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    opts.stream.write(`\r\x1b[K${progressText(sent, opts.total, width)}${counts ? `  ${counts}` : ''}`);
    drawn = true;
  };

  return {
    tick(counts) {
      sent += 1;
      latest = counts;
      const t = now();
      if (t - last >= interval || sent === opts.total) {
        last = t;
        draw();
      }
    },
    done() {
      if (drawn) {
        draw();
        opts.stream.write('\n');
      }
    },
  };
}

/** The line a bar shows, without escapes (for tests and plain logs). */
export function progressText(sent: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((sent / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${sent}/${total}`;
}
