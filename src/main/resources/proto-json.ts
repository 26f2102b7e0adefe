// Reads a JSON value the way Kuma's protobuf JSON unmarshaller (golang/protobuf jsonpb) reads it into a
// message: a field by its JSON name or its proto name, null as "not set", integers also as strings,
// enums by name, durations in Go's syntax. The result is the message in its JSON form (JSON names,
// integers as numbers), so what is stored is what Kuma would print; nothing the input set is dropped.
// One difference, on purpose: Kuma drops unknown fields, meshdesk refuses them (a typo must not
// silently change what a proxy gets); see test/kuma/known-differences.ts.
import { isGoDuration } from './go-duration.js';
import { fieldPath, indexPath, keyPath } from './field-path.js';
import type { ViolationList } from './validation-error.js';

export type JsonObject = Record<string, unknown>;

/**
 * A proto field's type, as far as its JSON form goes. The wrappers (google.protobuf.UInt32Value,
 * BoolValue, DoubleValue) are their bare value in JSON, so they are `uint32`, `bool`, `double` here.
 */
export type FieldType =
  | { kind: 'string' | 'bool' | 'uint32' | 'double' | 'duration' | 'struct' | 'stringMap' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'message'; fields: MessageFields }
  | { kind: 'list'; of: FieldType };

/** A message's fields by JSON name; `protoName` when the .proto spells it otherwise (`redirect_port_inbound`). */
export type MessageFields = Readonly<Record<string, { type: FieldType; protoName?: string }>>;

export const string = { kind: 'string' } as const;
export const bool = { kind: 'bool' } as const;
export const uint32 = { kind: 'uint32' } as const;
export const double = { kind: 'double' } as const;
export const duration = { kind: 'duration' } as const;
export const struct = { kind: 'struct' } as const;
export const stringMap = { kind: 'stringMap' } as const;
export const enumOf = (values: readonly string[]): FieldType => ({ kind: 'enum', values });
export const message = (fields: MessageFields): FieldType => ({ kind: 'message', fields });
export const list = (of: FieldType): FieldType => ({ kind: 'list', of });

const UINT32_MAX = 4_294_967_295;
const UNSIGNED_DECIMAL = /^(0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

export interface ReadOptions {
  /** Drop unknown fields as Kuma does: only for a backend's free-form `conf`, which Kuma reads the same way. */
  ignoreUnknownFields?: boolean;
}

/**
 * The message `fields` describe, read from `value` at `path`; every problem is recorded in `violations`.
 * Returns undefined when `value` is not an object at all.
 */
export function readMessage(
  fields: MessageFields,
  value: unknown,
  path: string,
  violations: ViolationList,
  options: ReadOptions = {},
): JsonObject | undefined {
  if (!isJsonObject(value)) {
    violations.add(path, 'must be an object');
    return undefined;
  }
  const byProtoName = new Map(
    Object.entries(fields).flatMap(([jsonName, field]) => (field.protoName ? [[field.protoName, jsonName]] : [])),
  );
  const entries: [string, unknown][] = [];
  for (const [key, fieldValue] of Object.entries(value)) {
    // Own properties only: `constructor` or `__proto__` in the input must not find Object's.
    const jsonName = Object.hasOwn(fields, key) ? key : byProtoName.get(key);
    if (jsonName === undefined) {
      if (!options.ignoreUnknownFields) violations.add(fieldPath(path, key), 'unknown field');
      continue;
    }
    // jsonpb reads the JSON name after the proto name: when both are given, the JSON name wins.
    if (jsonName !== key && Object.hasOwn(value, jsonName)) continue;
    if (fieldValue === null || fieldValue === undefined) continue;
    const read = readValue(fields[jsonName]!.type, fieldValue, fieldPath(path, jsonName), violations, options);
    if (read !== undefined) entries.push([jsonName, read]);
  }
  return Object.fromEntries(entries);
}

function readValue(type: FieldType, value: unknown, path: string, violations: ViolationList, options: ReadOptions): unknown {
  const refuse = (expected: string): undefined => {
    violations.add(path, `must be ${expected}`);
    return undefined;
  };
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : refuse(`a string${quoteHint(value)}`);
    case 'bool':
      return typeof value === 'boolean' ? value : refuse('true or false');
    case 'uint32': {
      const number = typeof value === 'string' && UNSIGNED_DECIMAL.test(value) ? Number(value) : value;
      return typeof number === 'number' && Number.isInteger(number) && number >= 0 && number <= UINT32_MAX
        ? number
        : refuse(`an integer in [0, ${UINT32_MAX}]`);
    }
    case 'double': {
      const number = typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
      return typeof number === 'number' ? number : refuse('a number');
    }
    case 'duration':
      return typeof value === 'string' && isGoDuration(value) ? value : refuse('a duration such as "1s", "500ms" or "1m30s"');
    case 'struct':
      return isJsonObject(value) ? value : refuse('an object');
    case 'stringMap':
      return readStringMap(value, path, violations);
    case 'enum':
      if (typeof value === 'string' && type.values.includes(value)) return value;
      // An enum's number is its index in every Kuma enum meshdesk reads: store the name Kuma would print.
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < type.values.length) {
        return type.values[value];
      }
      return refuse(`one of ${type.values.join(', ')}`);
    case 'message':
      return readMessage(type.fields, value, path, violations, options);
    case 'list':
      if (!Array.isArray(value)) return refuse('an array');
      // jsonpb reads a null item as the empty value of the item's type.
      return value.map((item, index) =>
        item === null ? emptyValue(type.of) : readValue(type.of, item, indexPath(path, index), violations, options),
      );
  }
}

/** map<string, string>: a null value is the empty string, as in jsonpb. */
function readStringMap(value: unknown, path: string, violations: ViolationList): Record<string, string> | undefined {
  if (!isJsonObject(value)) {
    violations.add(path, 'must be an object');
    return undefined;
  }
  const entries: [string, string][] = [];
  for (const [key, entry] of Object.entries(value)) {
    if (entry === null) entries.push([key, '']);
    else if (typeof entry === 'string') entries.push([key, entry]);
    else violations.add(keyPath(path, key), `must be a string${quoteHint(entry)}`);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key instead of replacing the prototype.
  return Object.fromEntries(entries);
}

function emptyValue(type: FieldType): unknown {
  switch (type.kind) {
    case 'string':
    case 'duration':
      return '';
    case 'bool':
      return false;
    case 'uint32':
    case 'double':
      return 0;
    case 'enum':
      return type.values[0];
    case 'list':
      return [];
    default:
      return {};
  }
}

/** `version: 1` in YAML is a number: say how to make it a string. */
function quoteHint(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? ` (quote it: "${String(value)}")` : '';
}

export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
