// Durations as Kuma's config and Go's time.ParseDuration write them ("1s", "500ms", "1m30s"),
// held as whole milliseconds: no setting needs finer, and whole numbers make formatDuration an exact inverse.

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;

// `ms` before `m` and `s`, so that "500ms" is not read as 500 minutes followed by garbage.
const COMPONENT_SOURCE = String.raw`(\d+(?:\.\d+)?|\.\d+)(ms|h|m|s)`;

export class DurationSyntaxError extends Error {
  override readonly name = 'DurationSyntaxError';
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid duration "${input}": ${reason}`);
  }
}

/**
 * Parses a Go-style duration into milliseconds: one or more `<number><unit>` parts with units
 * h, m, s, ms (e.g. "2h", "1m30s", "1.5s", "0s"); a bare "0" is accepted as Go does.
 * Signs, spaces, µs/ns and anything finer than a millisecond are rejected.
 */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  if (text === '') throw new DurationSyntaxError(text, 'expected a number and a unit, e.g. "1s" or "500ms"');
  const component = new RegExp(COMPONENT_SOURCE, 'y');
  // Exact decimal arithmetic: a float sum rounded to the µs read "0.0001ms" as 0 (caching off).
  let total = 0n;
  while (component.lastIndex < text.length) {
    const start = component.lastIndex;
    const match = component.exec(text);
    if (!match) {
      throw new DurationSyntaxError(
        text,
        `unexpected "${text.slice(start)}"; write a number followed by one of the units h, m, s, ms, e.g. "1m30s"`,
      );
    }
    const [whole = '', fraction = ''] = match[1]!.split('.');
    const scaled = BigInt(`${whole}${fraction}` || '0') * BigInt(UNIT_MS[match[2] as Unit]);
    const divisor = 10n ** BigInt(fraction.length);
    if (scaled % divisor !== 0n) {
      throw new DurationSyntaxError(text, `"${match[0]}" is not a whole number of milliseconds: meshdesk keeps durations to the millisecond`);
    }
    total += scaled / divisor;
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new DurationSyntaxError(text, 'too long');
  return Number(total);
}

/** The inverse of parseDuration, Go-style but without zero parts: 1000 → "1s", 1500 → "1.5s", 90000 → "1m30s", 7200000 → "2h". */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new RangeError(`cannot format ${ms} as a duration: expected a whole, non-negative number of milliseconds`);
  }
  if (ms === 0) return '0s';
  if (ms < UNIT_MS.s) return `${ms}ms`;
  const hours = Math.floor(ms / UNIT_MS.h);
  const minutes = Math.floor((ms % UNIT_MS.h) / UNIT_MS.m);
  const secondsMs = ms % UNIT_MS.m;
  return (
    (hours > 0 ? `${hours}h` : '') +
    (minutes > 0 ? `${minutes}m` : '') +
    // Dividing a whole number of ms by 1000 prints at most three decimals exactly ("1.5", "0.001").
    (secondsMs > 0 ? `${secondsMs / UNIT_MS.s}s` : '')
  );
}
