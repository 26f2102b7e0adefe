// Counts, ratios and rates for dense tables and chart axes.

const COUNT = new Intl.NumberFormat('en-US');

/** `1,234`. */
export function formatCount(value: number): string {
  return COUNT.format(Math.round(value));
}

/** `87.5%`; `—` when there is nothing to divide (no lookups yet). */
export function formatPercent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined || !Number.isFinite(ratio) ? '—' : `${(ratio * 100).toFixed(1)}%`;
}

/** `0`, `0.4`, `12`, `1.2k` per second: one decimal below 10, none above, k from a thousand. */
export function formatRate(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return value < 10 ? String(Number(value.toFixed(1))) : String(Math.round(value));
}

/** (hit + hit-wait) / all, or null before any lookup. */
export function ratioOf(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
