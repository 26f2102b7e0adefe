import { durationParts, readGoDuration } from '../../resources/go-duration.js';

/**
 * A policy's duration (Go's syntax, `1m30s`, `500ms`) as a google.protobuf.Duration in proto3 JSON
 * (`90s`, `0.5s`). The policy was validated on the way in, so the text parses.
 */
export function protoDuration(goDuration: string): string {
  const { sign, seconds, nanos } = durationParts(readGoDuration(goDuration)?.nanoseconds ?? 0n);
  return `${sign}${seconds}${nanos === 0n ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`}s`;
}
