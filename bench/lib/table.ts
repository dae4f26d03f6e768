/**
 * One line of a benchmark's verdict: our figure next to the baseline measured in the same
 * run, their ratio, the target and PASS/FAIL. `higherIsBetter` decides the direction.
 */
export interface BenchRow {
  bench: string;
  metric: string;
  unit: string;
  ours: number;
  /** Absent for absolute targets (RSS, latency). */
  baseline?: number;
  /** Human-readable target, e.g. ">= 50 % of baseline" or "<= 100 MB". */
  target: string;
  /** undefined: informational row, no verdict; null: the target could not be evaluated (n/a). */
  pass?: boolean | null;
  /** ours / baseline, when there is a baseline. */
  ratio?: number;
  /** Show the ratio as "2.3x" (speed-ups) instead of a percentage. */
  ratioAs?: 'percent' | 'times';
  note?: string;
}

export function fmt(n: number | undefined, digits = 0): string {
  if (n === undefined || Number.isNaN(n)) return '-';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Whole numbers stay whole; small fractional figures get one decimal. */
function num(n: number | undefined): string {
  if (n === undefined) return '-';
  return fmt(n, Number.isInteger(n) || Math.abs(n) >= 100 ? 0 : 1);
}

function ratioText(r: BenchRow): string {
  if (r.ratio === undefined) return '-';
  // One decimal, so that 29.5 % against a 30 % target does not print as "30 %  FAIL".
  return r.ratioAs === 'times' || r.ratio >= 10 ? `${fmt(r.ratio, 1)}x` : `${fmt(r.ratio * 100, 1)} %`;
}

function verdict(r: BenchRow): string {
  if (r.pass === undefined) return 'info';
  if (r.pass === null) return 'n/a';
  return r.pass ? 'PASS' : 'FAIL';
}

/** A plain-text table with right-aligned numbers. */
export function renderTable(rows: readonly BenchRow[]): string {
  const head = ['benchmark', 'metric', 'ours', 'baseline', 'unit', 'ratio', 'target', 'verdict'];
  const body = rows.map((r) => [
    r.bench,
    r.metric,
    num(r.ours),
    num(r.baseline),
    r.unit,
    ratioText(r),
    r.target,
    verdict(r),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const numeric = new Set([2, 3, 5]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const b of body) out.push(line(b));
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.bench} / ${r.metric}: ${r.note}`);
  return [...out, ...(notes.length ? ['', 'notes:', ...notes] : [])].join('\n');
}

/** Row for "ours must reach `minRatio` of the baseline" (throughput: higher is better). */
export function ratioRow(
  r: Omit<BenchRow, 'ratio' | 'pass' | 'target'> & { baseline: number; minRatio: number; targetText?: string },
): BenchRow {
  const ratio = r.ours / r.baseline;
  const { minRatio, targetText, ...rest } = r;
  const target =
    targetText ??
    (r.ratioAs === 'times' ? `>= ${fmt(minRatio, 1)}x baseline` : `>= ${fmt(minRatio * 100)} % of baseline`);
  return { ...rest, ratio, target, pass: ratio >= minRatio };
}

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}
