// Kuma's common validators for policy confs (pkg/core/validators/common_validators.go and
// messages.go): the same checks with the same messages, on the JSON a policy was written in.
import { parseGoDuration } from '../../resources/go-duration.js';
import type { ViolationList } from '../../resources/validation-error.js';

export const MUST_NOT_BE_EMPTY = 'must not be empty';
export const MUST_BE_DEFINED = 'must be defined';
export const MUST_BE_DEFINED_AND_GREATER_THAN_ZERO = 'must be defined and greater than zero';
export const HAS_TO_BE_GREATER_THAN_ZERO = 'must be greater than 0';
const WHEN_DEFINED_NON_NEGATIVE = 'must not be negative when defined';
const WHEN_DEFINED_GREATER_THAN_ZERO = 'must be greater than zero when defined';
const UINT_PERCENTAGE_RANGE = 'must be in inclusive range [0, 100]';
const PERCENTAGE_RANGE = 'must be in inclusive range [0.0, 100.0]';
const STRING_NOT_A_NUMBER = 'string must be a valid number';
/** Where Kuma's JSON unmarshalling would fail before its validator runs: meshdesk says which field. */
const NOT_A_DURATION = 'must be a duration such as "1s", "500ms" or "1m30s"';
const NOT_AN_INTEGER = 'must be a non-negative integer';

export function mustHaveAtLeastOne(...names: string[]): string {
  return `must have at least one defined: ${names.join(', ')}`;
}

/** The duration in nanoseconds, or a violation when the value is no duration at all. */
function duration(violations: ViolationList, path: string, value: unknown): number | undefined {
  const nanoseconds = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (nanoseconds === undefined) violations.add(path, NOT_A_DURATION);
  return nanoseconds;
}

/** A duration field Kuma reads without a further check: only its syntax. */
export function durationOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value !== undefined) duration(violations, path, value);
}

/** A uint32 field Kuma reads without a further check: only its type. */
export function uint32OrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value !== undefined) uint32(violations, path, value);
}

/** Kuma's ValidateDurationNotNegativeOrNil. */
export function durationNotNegativeOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value === undefined) return;
  const nanoseconds = duration(violations, path, value);
  if (nanoseconds !== undefined && nanoseconds < 0) violations.add(path, WHEN_DEFINED_NON_NEGATIVE);
}

/** Kuma's ValidateDurationGreaterThanZeroOrNil. */
export function durationGreaterThanZeroOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value === undefined) return;
  const nanoseconds = duration(violations, path, value);
  if (nanoseconds !== undefined && nanoseconds <= 0) violations.add(path, WHEN_DEFINED_GREATER_THAN_ZERO);
}

/** Kuma's ValidateDurationGreaterThanZero (the field is there but may be zero). */
export function durationGreaterThanZero(violations: ViolationList, path: string, value: unknown): void {
  const nanoseconds = duration(violations, path, value);
  if (nanoseconds !== undefined && nanoseconds <= 0) violations.add(path, MUST_BE_DEFINED_AND_GREATER_THAN_ZERO);
}

/** A uint32 field read as Kuma's JSON decoder reads it; a violation when it is not one. */
export function uint32(violations: ViolationList, path: string, value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff) return value;
  violations.add(path, NOT_AN_INTEGER);
  return undefined;
}

/** Kuma's ValidateIntegerGreaterThanZeroOrNil. */
export function integerGreaterThanZeroOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value === undefined) return;
  if (uint32(violations, path, value) === 0) violations.add(path, HAS_TO_BE_GREATER_THAN_ZERO);
}

/** Kuma's ValidateUInt32PercentageOrNil. */
export function uint32PercentageOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value === undefined) return;
  const number = uint32(violations, path, value);
  if (number !== undefined && number > 100) violations.add(path, UINT_PERCENTAGE_RANGE);
}

/**
 * An int-or-string decimal (Kuma's NewDecimalFromIntOrString: `30`, or `"30.2"`), as a number;
 * undefined when the string is not a number.
 */
export function decimalFromIntOrString(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value.trim())) return undefined;
  return Number(value);
}

/** Kuma's ValidatePercentageOrNil, on an int-or-string. */
export function percentageOrNil(violations: ViolationList, path: string, value: unknown): void {
  if (value === undefined) return;
  const number = decimalFromIntOrString(value);
  if (number === undefined) violations.add(path, STRING_NOT_A_NUMBER);
  else if (number < 0 || number > 100) violations.add(path, PERCENTAGE_RANGE);
}

/** Kuma's ValidateNil: the field must be absent, for the reason given. */
export function mustBeAbsent(violations: ViolationList, path: string, value: unknown, message: string): void {
  if (value !== undefined) violations.add(path, message);
}
