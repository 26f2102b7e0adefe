// Kuma's own ParseDuration (pkg/util/time), which certificate lifetimes use: one number and one
// unit, days, weeks and years included (`24h`, `1d`, `10y`).

const KUMA_DURATION = /^(\d+)(y|w|d|h|m|s|ms)$/;
const MILLISECONDS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000 } as const;

/** The duration in milliseconds, or undefined when Kuma would refuse the text. */
export function parseKumaDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const match = KUMA_DURATION.exec(text);
  return match ? Number(match[1]) * MILLISECONDS[match[2] as keyof typeof MILLISECONDS] : undefined;
}

export function isKumaDuration(text: string): boolean {
  return parseKumaDuration(text) !== undefined;
}
