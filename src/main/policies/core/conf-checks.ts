// Kuma's common conf validators (pkg/core/validators/common_validators.go), with Kuma's messages.
// A conf arrives as parsed JSON: a field may be absent (Go's zero value) or of another JSON type.
import { parseGoDuration } from '../../resources/go-duration.js';
import type { ViolationList } from '../../resources/validation-error.js';

export const MUST_BE_DEFINED = 'must be defined';
export const MUST_NOT_BE_EMPTY = 'must not be empty';

/** `must have at least one defined: a, b` (validators.MustHaveAtLeastOne). */
export function mustHaveAtLeastOne(...fields: string[]): string {
  return `must have at least one defined: ${fields.join(', ')}`;
}

/** A percentage as Kuma reads an int-or-string (shopspring decimal), or undefined when it is not a number. */
export function parsePercentage(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/** ValidatePercentage with allow0: an absent value is Go's zero value, 0. */
export function checkPercentage(value: unknown, path: string, violations: ViolationList): void {
  const percentage = parsePercentage(value);
  if (percentage === undefined) violations.add(path, 'string must be a valid number');
  else if (percentage < 0 || percentage > 100) violations.add(path, 'must be in inclusive range [0.0, 100.0]');
}

/** ValidateStatusCode: an absent status is 0. */
export function checkStatusCode(value: unknown, path: string, violations: ViolationList): void {
  const status = typeof value === 'number' ? value : 0;
  if (status < 100 || status >= 600) violations.add(path, 'must be in inclusive range [100, 599]');
}

/** ValidateIntegerGreaterThan: an absent number is 0. */
export function checkIntegerGreaterThan(value: unknown, min: number, path: string, violations: ViolationList): void {
  const number = typeof value === 'number' ? value : 0;
  if (number <= min) violations.add(path, `must be greater than ${min}`);
}

/**
 * A duration field (k8s Duration, Go's time.ParseDuration) in nanoseconds; an absent one is 0.
 * Text Go cannot read is reported with Go's own message and gives undefined.
 */
export function readDuration(value: unknown, path: string, violations: ViolationList): number | undefined {
  if (value === undefined || value === null) return 0;
  const nanoseconds = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (nanoseconds === undefined) violations.add(path, `time: invalid duration ${JSON.stringify(String(value))}`);
  return nanoseconds;
}

/** ValidateDurationNotNegative, for a non-pointer duration. */
export function checkDurationNotNegative(value: unknown, path: string, violations: ViolationList): void {
  const nanoseconds = readDuration(value, path, violations);
  if (nanoseconds !== undefined && nanoseconds < 0) violations.add(path, 'must not be negative when defined');
}

/** ValidateDurationGreaterThan: `must be greater than: 50ms` (Go prints the minimum as a duration). */
export function checkDurationGreaterThan(value: unknown, minMilliseconds: number, path: string, violations: ViolationList): void {
  const nanoseconds = readDuration(value, path, violations);
  if (nanoseconds !== undefined && nanoseconds <= minMilliseconds * 1e6) violations.add(path, `must be greater than: ${minMilliseconds}ms`);
}

/** Kuma's BandwidthRegex: `<digits> <unit>`, the unit any run of G, M, k followed by `bps`. */
export const BANDWIDTH = /^(\d*)\s?([GMk]+bps)$/;

/** ValidateBandwidth: a number is read as its text, as Kuma's YAML decoding does. */
export function checkBandwidth(value: unknown, path: string, violations: ViolationList): void {
  const text = value === undefined || value === null ? '' : String(value);
  if (text === '') violations.add(path, MUST_BE_DEFINED);
  else if (!BANDWIDTH.test(text)) violations.add(path, 'must be in kbps/Mbps/Gbps units');
}

/** The `default` of each item of a `to`, `from` or `rules` list, whatever shape the list arrived in (the shared checks report a bad one). */
export function itemDefaults(list: unknown): { index: number; item: Record<string, unknown>; conf: unknown }[] {
  return (Array.isArray(list) ? list : []).flatMap((item: unknown, index) => (isRecord(item) ? [{ index, item, conf: item.default }] : []));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
