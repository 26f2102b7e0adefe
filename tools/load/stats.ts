/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function formatMs(ms: number): string {
  return Number.isNaN(ms) ? 'n/a' : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}
