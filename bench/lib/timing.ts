/** Monotonic milliseconds (fractional). */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Runs `fn` and returns its result and the elapsed milliseconds. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = nowMs();
  const value = await fn();
  return { value, ms: nowMs() - t0 };
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

/** Items per second. */
export function rate(items: number, ms: number): number {
  return ms > 0 ? (items * 1000) / ms : NaN;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Lets a collection run between measured phases (node --expose-gc), so one phase's garbage is not billed to the next. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
