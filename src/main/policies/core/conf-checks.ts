import { parseGoDuration } from '../../resources/go-duration.js';
import type { ViolationList } from '../../resources/validation-error.js';

// The checks Kuma's policy validators share (pkg/core/validators: common_validators.go and
// messages.go), with Kuma's messages. Each takes the value as it came in (a conf is checked before
// it is trusted) and says nothing when it is absent, as Kuma's `…OrNil` checks.

export const MUST_BE_DEFINED = 'must be defined';
export const MUST_NOT_BE_EMPTY = 'must not be empty';
const WHEN_DEFINED_GREATER_THAN_ZERO = 'must be greater than zero when defined';
export const GREATER_THAN_ZERO = 'must be greater than 0';
export const MUST_BE_DEFINED_AND_GREATER_THAN_ZERO = 'must be defined and greater than zero';
const WHEN_DEFINED_NOT_NEGATIVE = 'must not be negative when defined';
const VALID_NUMBER = 'string must be a valid number';
const VALID_PATH = 'must be a valid path when defined';
const PERCENTAGE_RANGE = 'must be in inclusive range [0.0, 100.0]';
const UINT_PERCENTAGE_RANGE = 'must be in inclusive range [0, 100]';
/** Go's time.ParseDuration error, which Kuma's JSON decoding of the policy answers first. */
function invalidDuration(value: unknown): string {
  return `time: invalid duration ${JSON.stringify(textOf(value))}`;
}

/**
 * A field's value as text for a message: a list or an object as its JSON (String() of one may
 * throw: `[{ "toString": 0 }]` is valid JSON), anything else as String() gives it.
 */
function textOf(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The items of a list field as it came in; anything but a list has none to check. */
export function listItems<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? value : [];
}

/** The items of a list field, with a violation when it is there but no list (Kuma's decoder refuses it). */
export function checkList<T>(value: readonly T[] | undefined, path: string, violations: ViolationList): readonly T[] {
  if (value !== undefined && value !== null && !Array.isArray(value)) violations.add(path, 'must be a list');
  return listItems(value);
}

/** Not Kuma's: its decoder refuses a count that is no uint32 before any validator runs. */
export function checkUint32(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) violations.add(path, 'must be a non-negative integer');
}

/** Kuma's ValidateNil: the field must be absent, for the reason given. */
export function checkAbsent(value: unknown, path: string, violations: ViolationList, message: string): void {
  if (value !== undefined && value !== null) violations.add(path, message);
}

/** Kuma's MustHaveAtLeastOne. */
export function mustHaveAtLeastOne(...fields: string[]): string {
  return `must have at least one defined: ${fields.join(', ')}`;
}

/** Kuma's ValidateDurationGreaterThanZeroOrNil. */
export function checkDurationGreaterThanZero(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  const nanos = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (nanos === undefined) violations.add(path, invalidDuration(value));
  else if (nanos <= 0) violations.add(path, WHEN_DEFINED_GREATER_THAN_ZERO);
}

/** A duration Kuma reads without a further check: only its syntax. */
export function checkDuration(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || parseGoDuration(value) === undefined) violations.add(path, invalidDuration(value));
}

/** Kuma's ValidateDurationNotNegativeOrNil. */
export function checkDurationNotNegative(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  const nanos = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (nanos === undefined) violations.add(path, invalidDuration(value));
  else if (nanos < 0) violations.add(path, WHEN_DEFINED_NOT_NEGATIVE);
}

/** Kuma's ValidateDurationGreaterThanZero: the field is there (maybe zero) and must be above zero. */
export function checkDurationDefinedGreaterThanZero(value: unknown, path: string, violations: ViolationList): void {
  const nanos = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (nanos === undefined) violations.add(path, invalidDuration(value));
  else if (nanos <= 0) violations.add(path, MUST_BE_DEFINED_AND_GREATER_THAN_ZERO);
}

/** Kuma's ValidateValueGreaterThanZeroOrNil (an int32). */
export function checkValueGreaterThanZero(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || value <= 0) violations.add(path, WHEN_DEFINED_GREATER_THAN_ZERO);
}

/** Kuma's ValidateIntegerGreaterThanZeroOrNil (a uint32). */
export function checkIntegerGreaterThanZero(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || value <= 0) violations.add(path, GREATER_THAN_ZERO);
}

/** Kuma's ValidateIntPercentageOrNil: an integer in [0, 100]. */
export function checkIntPercentage(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || value < 0 || value > 100) violations.add(path, UINT_PERCENTAGE_RANGE);
}

/**
 * An IntOrString as Kuma's NewDecimalFromIntOrString reads it: a number, or a string holding a
 * decimal (`"62.9"`); undefined when it is neither.
 */
export function decimalFromIntOrString(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/** Kuma's ValidatePercentageOrNil, and with `required` its ValidatePercentage (`allowZero` false: 0 is refused too). */
export function checkPercentage(
  value: unknown,
  path: string,
  violations: ViolationList,
  options: { required?: boolean; allowZero?: boolean } = {},
): void {
  if (value === undefined || value === null) {
    if (options.required) violations.add(path, MUST_BE_DEFINED);
    return;
  }
  const decimal = decimalFromIntOrString(value);
  if (decimal === undefined) violations.add(path, VALID_NUMBER);
  else if (decimal < 0 || decimal > 100) violations.add(path, PERCENTAGE_RANGE);
  else if (options.allowZero === false && decimal === 0) violations.add(path, GREATER_THAN_ZERO);
}

/** Kuma's ValidateIntOrStringGreaterOrEqualThan. */
export function checkDecimalAtLeast(value: unknown, minimum: number, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  const decimal = decimalFromIntOrString(value);
  if (decimal === undefined) violations.add(path, VALID_NUMBER);
  else if (decimal < minimum) violations.add(path, `must be greater or equal then: ${minimum}`);
}

/** Kuma's ValidateStringDefined. */
export function checkStringDefined(value: unknown, path: string, violations: ViolationList): void {
  if (value === '' || typeof value !== 'string') violations.add(path, MUST_BE_DEFINED);
}

// govalidator's IsFilePath, which Kuma's ValidatePathOrNil uses: a Windows path or a Unix one.
const WINDOWS_PATH = /^[a-zA-Z]:\\(?:[^\\/:*?"<>|\r\n]+\\)*[^\\/:*?"<>|\r\n]*$/;
const UNIX_PATH = /^(\/[^/\x00]*)+\/?$/;

/** Kuma's ValidatePathOrNil. */
export function checkFilePath(value: unknown, path: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !(WINDOWS_PATH.test(value) || UNIX_PATH.test(value))) violations.add(path, VALID_PATH);
}

/** Kuma's ValidateStatusCode: [100, 599]. */
export function checkStatusCode(value: unknown, path: string, violations: ViolationList): void {
  if (typeof value !== 'number' || value < 100 || value >= 600) violations.add(path, 'must be in inclusive range [100, 599]');
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
  if (nanoseconds === undefined) violations.add(path, invalidDuration(value));
  return nanoseconds;
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
  const text = value === undefined || value === null ? '' : textOf(value);
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
