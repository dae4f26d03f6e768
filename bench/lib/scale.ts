/**
 * BENCH_SCALE shrinks (or grows) every workload: 1 = the figures in BENCHMARKS.md,
 * 0.1 = a quick smoke run. Targets are ratios, so they hold at any scale, but small
 * scales are noisier and fixed costs weigh more.
 */
export function benchScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_SCALE;
  if (raw === undefined || raw.trim() === '') return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`BENCH_SCALE must be a number > 0, got ${JSON.stringify(raw)}`);
  return n;
}

/** `n` scaled, rounded to a multiple of `step`, never below `min`. */
export function scaled(n: number, opts: { min?: number; step?: number } = {}): number {
  const step = opts.step ?? 1;
  const v = Math.round((n * benchScale()) / step) * step;
  return Math.max(opts.min ?? step, v);
}
