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
 * A Go duration as proto3 JSON writes a google.protobuf.Duration ("1h" → "3600s", "25ms" →
 * "0.025s"): how Kuma's plugins turn a policy's durations into Envoy's. The text must have been
 * validated; an unreadable one is a programming error.
 */
export function goDurationToProtoJson(text: string): string {
  const nanoseconds = parseGoDuration(text);
  if (nanoseconds === undefined) throw new Error(`"${text}" is not a Go duration`);
  const total = Math.round(Math.abs(nanoseconds));
  const seconds = Math.floor(total / 1e9);
  const fraction = total % 1e9;
  const decimals = fraction === 0 ? '' : `.${String(fraction).padStart(9, '0').replace(/0+$/, '')}`;
  return `${nanoseconds < 0 ? '-' : ''}${seconds}${decimals}s`;
}
