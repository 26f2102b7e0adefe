import protobuf from 'protobufjs';
import { WELL_KNOWN, WRAPPER_SCALARS, defaultScalar } from './proto-json.js';
import { fullNameOf } from './proto-root.js';

/**
 * Envoy's protoc-gen-validate (PGV) rules, read from the field options of the loaded protos and
 * checked the way Envoy checks them on receipt, so that a config Envoy would reject is rejected
 * here first, with a field path. Only the cheap rules: string length, numeric bounds, required
 * messages and oneofs, repeated/map sizes, duration bounds. (Enum names are always checked by the
 * encoder, which is stricter than `enum.defined_only`.)
 */

/** The merged `(validate.rules)` option of a field, e.g. `{ string: { min_len: 1 } }`. */
type Rules = { readonly [kind: string]: KindRules | undefined };
type KindRules = { readonly [rule: string]: unknown };

/** A broken rule; `at` is empty for the field itself or `[i]` for an element of a repeated field. */
export interface RuleViolation {
  at: string;
  problem: string;
}

const rulesByField = new WeakMap<protobuf.Field, Rules | null>();

function validationRules(field: protobuf.Field): Rules | null {
  let rules = rulesByField.get(field);
  if (rules === undefined) {
    // protobufjs keeps one parsedOptions entry per option statement: `[(validate.rules).uint32.lte = 5,
    // (validate.rules).uint32.gte = 1]` gives two entries that must be merged.
    const entries = (field.parsedOptions ?? []) as Array<Record<string, unknown>>;
    const parts = entries.filter((entry) => '(validate.rules)' in entry).map((entry) => entry['(validate.rules)']);
    rules = parts.length === 0 ? null : (parts.reduce(deepMerge, {}) as Rules);
    rulesByField.set(field, rules);
  }
  return rules;
}

/** A field with rules, and what it breaks when it is not set (the same in every message, and usually nothing). */
export interface RuledField {
  readonly field: protobuf.Field;
  readonly whenUnset: readonly RuleViolation[];
}

const ruledFieldsByType = new WeakMap<protobuf.Type, readonly RuledField[]>();

/** The fields of `type` with any rule, in declaration order: the others can break none, and most fields have none. */
export function ruledFields(type: protobuf.Type): readonly RuledField[] {
  let fields = ruledFieldsByType.get(type);
  if (!fields) {
    const ruled = type.fieldsArray.filter((field) => validationRules(field) !== null);
    ruledFieldsByType.set(type, (fields = ruled.map((field) => ({ field, whenUnset: Object.freeze(ruleViolations(field, undefined)) }))));
  }
  return fields;
}

/** `oneof x { option (validate.required) = true; … }`: exactly one member must be set. */
export function isRequiredOneof(oneof: protobuf.OneOf): boolean {
  return oneof.options?.['(validate.required)'] === true;
}

/**
 * What a field's value breaks. `value` is the encoder's converted value (numbers, 64-bit integers
 * as strings, enums as numbers, wrappers as `{ value }`, durations as `{ seconds, nanos }`), or
 * undefined when the JSON does not set the field.
 */
export function ruleViolations(field: protobuf.Field, value: unknown): RuleViolation[] {
  const rules = validationRules(field);
  if (!rules) return [];
  if (field.map) {
    const pairs = value === undefined ? 0 : Object.keys(value as object).length;
    const minPairs = rules.map?.min_pairs;
    return typeof minPairs === 'number' && pairs < minPairs ? [{ at: '', problem: `must have at least ${minPairs} entries (map.min_pairs)` }] : [];
  }
  if (field.repeated) return repeatedViolations(field, rules, (value as unknown[] | undefined) ?? []);
  // PGV validates a oneof member only when it is the one set.
  if (field.partOf && value === undefined) return [];
  return singleValueProblems(field, rules, value).map((problem) => ({ at: '', problem }));
}

function repeatedViolations(field: protobuf.Field, rules: Rules, items: unknown[]): RuleViolation[] {
  const repeated = rules.repeated ?? {};
  const violations: RuleViolation[] = [];
  if (typeof repeated.min_items === 'number' && items.length < repeated.min_items) {
    violations.push({ at: '', problem: `must have at least ${repeated.min_items} item(s) (repeated.min_items)` });
  }
  if (typeof repeated.max_items === 'number' && items.length > repeated.max_items) {
    violations.push({ at: '', problem: `must have at most ${repeated.max_items} item(s) (repeated.max_items)` });
  }
  const itemRules = repeated.items as Rules | undefined;
  if (itemRules) {
    items.forEach((item, index) => {
      for (const problem of singleValueProblems(field, itemRules, item)) violations.push({ at: `[${index}]`, problem });
    });
  }
  return violations;
}

function singleValueProblems(field: protobuf.Field, rules: Rules, value: unknown): string[] {
  const present = value !== undefined;
  const problems: string[] = [];
  if (rules.message?.required === true && !present) problems.push('is required (message.required)');
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    const fullName = fullNameOf(resolved);
    const wrapped = WRAPPER_SCALARS[fullName];
    if (wrapped) {
      // Rules on a wrapper field apply to the wrapped value, when there is one.
      if (present) problems.push(...scalarProblems(wrapped, rules[wrapped], (value as { value: unknown }).value));
    } else if (fullName === WELL_KNOWN.duration) {
      problems.push(...durationProblems(rules.duration, value as DurationValue | undefined));
    } else if (fullName === WELL_KNOWN.any && rules.any?.required === true && !present) {
      problems.push('is required (any.required)');
    } else if (fullName === WELL_KNOWN.timestamp && rules.timestamp?.required === true && !present) {
      problems.push('is required (timestamp.required)');
    }
    return problems;
  }
  if (resolved instanceof protobuf.Enum) {
    problems.push(...membershipProblems('enum', rules.enum, present ? value : 0));
    return problems;
  }
  problems.push(...scalarProblems(field.type, rules[field.type], present ? value : defaultScalar(field.type)));
  return problems;
}

function scalarProblems(kind: string, rules: KindRules | undefined, value: unknown): string[] {
  if (!rules) return [];
  if (rules.ignore_empty === true && isEmptyScalar(value)) return [];
  if (kind === 'string') return stringProblems(rules, value as string);
  if (kind === 'bytes') return lengthProblems('bytes', rules, (value as Uint8Array).length, 'byte');
  if (kind === 'bool') return rules.const !== undefined && rules.const !== value ? [`must be ${String(rules.const)} (bool.const)`] : [];
  return numberProblems(kind, rules, Number(value));
}

function stringProblems(rules: KindRules, value: string): string[] {
  const problems: string[] = [];
  // Characters and bytes are counted only for a rule on them: most strings have `min_len` at most.
  if (rules.min_len !== undefined || rules.max_len !== undefined || rules.len !== undefined) {
    problems.push(...lengthProblems('string', { min_len: rules.min_len, max_len: rules.max_len, len: rules.len }, characterCount(value), 'character'));
  }
  if (rules.min_bytes !== undefined || rules.max_bytes !== undefined) {
    problems.push(...lengthProblems('string', { min_bytes: rules.min_bytes, max_bytes: rules.max_bytes }, Buffer.byteLength(value), 'byte'));
  }
  problems.push(...membershipProblems('string', rules, value));
  if (typeof rules.prefix === 'string' && !value.startsWith(rules.prefix)) problems.push(`must start with "${rules.prefix}" (string.prefix)`);
  return problems;
}

/** Unicode code points, as PGV counts a string's length. */
function characterCount(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // A surrogate pair is one character (a lone surrogate counts as one, as the string's iterator does).
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

function lengthProblems(kind: string, rules: KindRules, length: number, unit: string): string[] {
  const problems: string[] = [];
  for (const rule of ['min_len', 'min_bytes']) {
    const min = rules[rule] as number | undefined;
    if (min !== undefined && length < min) problems.push(`must be at least ${min} ${unit}(s) long (${kind}.${rule}), got ${length}`);
  }
  for (const rule of ['max_len', 'max_bytes']) {
    const max = rules[rule] as number | undefined;
    if (max !== undefined && length > max) problems.push(`must be at most ${max} ${unit}(s) long (${kind}.${rule}), got ${length}`);
  }
  const exact = rules.len as number | undefined;
  if (exact !== undefined && length !== exact) problems.push(`must be exactly ${exact} ${unit}(s) long (${kind}.len), got ${length}`);
  return problems;
}

const NUMBER_BOUNDS: ReadonlyArray<[rule: string, holds: (value: number, bound: number) => boolean, words: string]> = [
  ['const', (value, bound) => value === bound, 'equal to'],
  ['lt', (value, bound) => value < bound, 'less than'],
  ['lte', (value, bound) => value <= bound, 'at most'],
  ['gt', (value, bound) => value > bound, 'greater than'],
  ['gte', (value, bound) => value >= bound, 'at least'],
];

function numberProblems(kind: string, rules: KindRules, value: number): string[] {
  const problems: string[] = [];
  for (const [rule, holds, words] of NUMBER_BOUNDS) {
    const bound = rules[rule];
    if (bound === undefined) continue;
    if (!holds(value, Number(bound))) problems.push(`must be ${words} ${String(bound)} (${kind}.${rule}), got ${value}`);
  }
  return [...problems, ...membershipProblems(kind, rules, value)];
}

function membershipProblems(kind: string, rules: KindRules | undefined, value: unknown): string[] {
  if (!rules) return [];
  const problems: string[] = [];
  const allowed = listRule(rules.in);
  const forbidden = listRule(rules.not_in);
  if (allowed && !allowed.some((candidate) => candidate === value || Number(candidate) === value)) {
    problems.push(`must be one of ${JSON.stringify(allowed)} (${kind}.in), got ${JSON.stringify(value)}`);
  }
  if (forbidden && forbidden.some((candidate) => candidate === value || Number(candidate) === value)) {
    problems.push(`must not be ${JSON.stringify(value)} (${kind}.not_in)`);
  }
  return problems;
}

/** An `in`/`not_in` rule: a list, or a single value where the option gives one (`enum = {not_in: 6}`). */
function listRule(rule: unknown): unknown[] | undefined {
  return rule === undefined ? undefined : Array.isArray(rule) ? rule : [rule];
}

interface DurationValue {
  seconds: number | string;
  nanos: number;
}

function durationProblems(rules: KindRules | undefined, value: DurationValue | undefined): string[] {
  if (!rules) return [];
  if (value === undefined) return rules.required === true ? ['is required (duration.required)'] : [];
  const problems: string[] = [];
  const nanos = durationNanos(value);
  for (const [rule, holds, words] of NUMBER_BOUNDS) {
    const bound = rules[rule] as Partial<DurationValue> | undefined;
    if (bound === undefined) continue;
    const boundNanos = durationNanos({ seconds: bound.seconds ?? 0, nanos: bound.nanos ?? 0 });
    if (!holds(Number(nanos - boundNanos), 0)) {
      problems.push(`must be ${words} ${formatNanos(boundNanos)} (duration.${rule}), got ${formatNanos(nanos)}`);
    }
  }
  return problems;
}

function durationNanos(duration: DurationValue): bigint {
  return BigInt(duration.seconds) * 1_000_000_000n + BigInt(duration.nanos);
}

function formatNanos(nanos: bigint): string {
  return `${Number(nanos) / 1e9}s`;
}

function isEmptyScalar(value: unknown): boolean {
  if (value instanceof Uint8Array) return value.length === 0;
  return value === '' || value === false || value === 0 || value === '0';
}

function deepMerge(target: Record<string, unknown>, source: unknown): Record<string, unknown> {
  for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
    const existing = target[key];
    target[key] =
      isRecord(existing) && isRecord(value) ? deepMerge({ ...existing }, value) : value;
  }
  return target;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
