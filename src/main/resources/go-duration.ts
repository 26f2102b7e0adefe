// Durations as Go's time.ParseDuration reads them: how Kuma reads a google.protobuf.Duration from JSON.

const NANOSECONDS = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 } as const;
type Unit = keyof typeof NANOSECONDS;
// `ms`/`ns`/`us` before `m`/`s`, so that "500ms" is not read as 500 minutes followed by garbage.
const COMPONENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
const SIGNED = /^[-+]?/;

/** The duration in nanoseconds (signed), or undefined when Go would refuse the text. */
export function parseGoDuration(text: string): number | undefined {
  const sign = SIGNED.exec(text)![0];
  const body = text.slice(sign.length);
  if (body === '0') return 0;
  if (body === '') return undefined;
  const component = new RegExp(COMPONENT.source, 'y');
  let total = 0;
  while (component.lastIndex < body.length) {
    const match = component.exec(body);
    if (!match) return undefined;
    total += Number(match[1]) * NANOSECONDS[match[2] as Unit];
  }
  return sign === '-' ? -total : total;
}

export function isGoDuration(text: string): boolean {
  return parseGoDuration(text) !== undefined;
}

/**
 * A Go duration as protobuf's JSON prints a google.protobuf.Duration ("1m30s" → "90s",
 * "1.5s" → "1.500s"), for config fields a policy's duration sets; undefined when Go would refuse it.
 */
export function goDurationToProtoJson(text: string): string | undefined {
  const nanos = parseGoDuration(text);
  if (nanos === undefined) return undefined;
  const sign = nanos < 0 ? '-' : '';
  const whole = Math.abs(Math.round(nanos));
  const seconds = Math.floor(whole / 1e9);
  const fraction = whole % 1e9;
  if (fraction === 0) return `${sign}${seconds}s`;
  const digits = String(fraction).padStart(9, '0');
  const shown = fraction % 1e6 === 0 ? digits.slice(0, 3) : fraction % 1e3 === 0 ? digits.slice(0, 6) : digits;
  return `${sign}${seconds}.${shown}s`;
}
