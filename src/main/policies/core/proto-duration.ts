import { parseGoDuration } from '../../resources/go-duration.js';

/**
 * A policy's duration (Go's syntax, `1m30s`, `500ms`) as a google.protobuf.Duration in proto3 JSON
 * (`90s`, `0.5s`). The policy was validated on the way in, so the text parses.
 */
export function protoDuration(goDuration: string): string {
  const nanoseconds = parseGoDuration(goDuration) ?? 0;
  const sign = nanoseconds < 0 ? '-' : '';
  const absolute = Math.abs(Math.round(nanoseconds));
  const seconds = Math.floor(absolute / 1e9);
  const nanos = absolute % 1e9;
  return `${sign}${seconds}${nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`}s`;
}
