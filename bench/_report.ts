/** The last stdout line of every benchmark (docs/performance.md). */
export interface BenchResult {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  baseline: number | null;
  baselineName: string | null;
}

export function report(r: BenchResult): void {
  const ratio = r.baseline ? r.value / r.baseline : null;
  console.log(JSON.stringify({ ...r, ratio: ratio === null ? null : Number(ratio.toFixed(4)) }));
}

/** p-th percentile (0..100) of a sample, nearest-rank. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median of a sample (the upper one of an even count): what round-based benchmarks report. */
export function median(sample: number[]): number {
  return [...sample].sort((a, b) => a - b)[Math.floor(sample.length / 2)]!;
}
