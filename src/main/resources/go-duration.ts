// Durations as Go's time.ParseDuration reads them: how Kuma reads a google.protobuf.Duration from JSON.

const NANOSECONDS = { ns: 1n, us: 1_000n, µs: 1_000n, μs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n } as const;
type Unit = keyof typeof NANOSECONDS;
// `ms`/`ns`/`us` before `m`/`s`, so that "500ms" is not read as 500 minutes followed by garbage.
const COMPONENT = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
const SIGNED = /^[-+]?/;
/** Go's time.Duration is an int64 of nanoseconds: ParseDuration refuses a longer one (about 292 years). */
const GO_DURATION_LIMIT = 1n << 63n;

/** A Go duration read exactly: its nanoseconds, and whether the text named a fraction of a nanosecond Go drops. */
export interface GoDuration {
  nanoseconds: bigint;
  /** False for `1.5ns` or `0.0000001ms`: Go keeps whole nanoseconds, and so does google.protobuf.Duration. */
  wholeNanoseconds: boolean;
}

/** The duration as Go reads it, or undefined when Go would refuse the text (its syntax, or longer than an int64 of nanoseconds). */
export function readGoDuration(text: string): GoDuration | undefined {
  const sign = SIGNED.exec(text)![0];
  const body = text.slice(sign.length);
  if (body === '0') return { nanoseconds: 0n, wholeNanoseconds: true };
  if (body === '') return undefined;
  const component = new RegExp(COMPONENT.source, 'y');
  let total = 0n;
  let wholeNanoseconds = true;
  while (component.lastIndex < body.length) {
    const match = component.exec(body);
    // Go needs a digit before or after the dot: ".s" and "s" are refused.
    if (!match || (match[1] === '' && (match[2] ?? '') === '')) return undefined;
    const unit = NANOSECONDS[match[3] as Unit];
    const fraction = match[2] ?? '';
    const scale = 10n ** BigInt(fraction.length);
    const fractionNanos = fraction === '' ? 0n : BigInt(fraction) * unit;
    if (fractionNanos % scale !== 0n) wholeNanoseconds = false;
    total += BigInt(match[1] || '0') * unit + fractionNanos / scale;
    if (total > GO_DURATION_LIMIT) return undefined;
  }
  if (sign !== '-' && total === GO_DURATION_LIMIT) return undefined;
  return { nanoseconds: sign === '-' ? -total : total, wholeNanoseconds };
}

/** The duration in nanoseconds (signed, whole as Go keeps them), or undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  const read = readGoDuration(text);
  return read === undefined ? undefined : Number(read.nanoseconds);
}

export function isGoDuration(text: string): boolean {
  return readGoDuration(text) !== undefined;
}

/** Seconds and nanoseconds of a Go duration, the parts of a google.protobuf.Duration (both carry the sign). */
export function durationParts(nanoseconds: bigint): { sign: '' | '-'; seconds: bigint; nanos: bigint } {
  const absolute = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  return { sign: nanoseconds < 0n ? '-' : '', seconds: absolute / 1_000_000_000n, nanos: absolute % 1_000_000_000n };
}

/**
 * A Go duration as protobuf's JSON prints a google.protobuf.Duration ("1m30s" → "90s",
 * "1.5s" → "1.500s"), for config fields a policy's duration sets; undefined when Go would refuse it.
 */
export function goDurationToProtoJson(text: string): string | undefined {
  const read = readGoDuration(text);
  if (read === undefined) return undefined;
  const { sign, seconds, nanos } = durationParts(read.nanoseconds);
  if (nanos === 0n) return `${sign}${seconds}s`;
  const digits = String(nanos).padStart(9, '0');
  const shown = nanos % 1_000_000n === 0n ? digits.slice(0, 3) : nanos % 1_000n === 0n ? digits.slice(0, 6) : digits;
  return `${sign}${seconds}.${shown}s`;
}
