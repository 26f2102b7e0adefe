// The JSON shape of a policy's spec beyond its targetRefs and matches (read by validate-policy.ts):
// its confs and route rules, as Kuma's OpenAPI schema for the type describes them. Kuma checks the
// schema before its validator runs; meshdesk does the same, so that every validator reads the
// types its conf declares, and a value of another JSON type is refused by name instead of
// failing the validator (a 500 where Kuma answers with the field).
import { fieldPath, indexPath } from '../../resources/field-path.js';
import { isJsonObject } from '../../resources/proto-json.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { servedJsonType, servedProblems, type ServedShape } from './served-value.js';

/**
 * A value's shape: a JSON type; `int-or-string` (k8s IntOrString, and text fields YAML may give as
 * numbers, which Kuma's validators read either way); `any`; or an object (by field), a list or a
 * map (by item). An object's fields the shape does not name are kept as given, as the confs
 * always were: the type's validator and plugin read only the fields Kuma's Go types have. A
 * `served` number, duration or text (served-value.ts) must also fit what the proxy is sent.
 */
export type SpecShape =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'int-or-string'
  | 'any'
  | ServedShape
  | { readonly object: { readonly [field: string]: SpecShape }; readonly required?: readonly string[] }
  | { readonly oneOf: readonly string[] }
  | { readonly text: TextBounds }
  | { readonly list: SpecShape; readonly minItems?: number }
  | { readonly map: SpecShape };

/** An object of these fields; `required` ones (Kuma's schema's `required`) must be there and not null. */
export const object = (fields: { readonly [field: string]: SpecShape }, required?: readonly string[]): SpecShape => ({ object: fields, ...(required && { required }) });
/** A list of `item`s; `minItems` is Kuma's schema's (an empty list is then refused, an absent one is not). */
export const list = (item: SpecShape, minItems?: number): SpecShape => ({ list: item, ...(minItems !== undefined && { minItems }) });
/** A string among Kuma's schema's `enum` values. */
export const oneOf = (...values: readonly string[]): SpecShape => ({ oneOf: values });
export const map = (value: SpecShape): SpecShape => ({ map: value });

/** Kuma's schema's bounds on a string (`minLength`, `maxLength`, `pattern`), checked as kube-openapi checks them. */
interface TextBounds {
  readonly minLength?: number;
  readonly maxLength?: number;
  /** As the schema writes it, which is how kube-openapi's message quotes it. */
  readonly pattern?: string;
}
export const text = (bounds: TextBounds): SpecShape => ({ text: bounds });

/**
 * Kuma's HeaderName (api/common/v1alpha1/header.go), which every header name of a policy is: an
 * empty name is refused by Kuma's schema, as Envoy would refuse it.
 */
export const headerName = text({ minLength: 1, maxLength: 256, pattern: "^[a-z0-9!#$%&'*+\\-.^_\\x60|~]+$" });
const patterns = new Map<string, RegExp>();

type Section = 'to' | 'from' | 'rules';

/** A spec whose sections' items carry a `default` of shape `conf` (every type but the route policies). */
export function defaultsIn(sections: readonly Section[], conf: SpecShape): SpecShape {
  return object(Object.fromEntries(sections.map((section) => [section, list(object({ default: conf }))])));
}

/**
 * `value` read as `shape`, as Kuma's schema check and Go's JSON decoding read it: a value of another
 * JSON type is reported at its path with kube-openapi's message and left out, and `null` is absent
 * (left out: Go decodes it as a nil pointer). Undefined for an absent or refused value. A value
 * of the right type that cannot be served is kept and reported in `unservable`.
 */
export function readShape(value: unknown, shape: SpecShape, path: string, violations: ViolationList, unservable: ViolationList = violations): unknown {
  if (value === undefined || value === null) return undefined;
  if (shape === 'any') return value;
  if (typeof shape === 'string') return matchesScalar(value, shape) ? value : refuse(value, jsonTypeOf(shape), path, violations);
  if ('served' in shape) {
    if (!matchesScalar(value, servedJsonType(shape))) return refuse(value, jsonTypeOf(shape), path, violations);
    for (const problem of servedProblems(shape, value as number | string)) unservable.add(path, problem);
    return value;
  }
  if ('oneOf' in shape) {
    if (typeof value !== 'string') return refuse(value, 'string', path, violations);
    if (shape.oneOf.includes(value)) return value;
    violations.add(path, `in body should be one of [${shape.oneOf.join(' ')}]`);
    return undefined;
  }
  if ('text' in shape) {
    if (typeof value !== 'string') return refuse(value, 'string', path, violations);
    const problem = textProblem(value, shape.text);
    if (problem === undefined) return value;
    violations.add(path, problem);
    return undefined;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) return refuse(value, 'array', path, violations);
    if (shape.minItems !== undefined && value.length < shape.minItems) violations.add(path, `in body should have at least ${shape.minItems} items`);
    // A null item is not an absent field: it is refused as a value of the wrong type.
    return value.map((item: unknown, index) =>
      item === null && shape.list !== 'any'
        ? refuse(item, jsonTypeOf(shape.list), indexPath(path, index), violations)
        : readShape(item, shape.list, indexPath(path, index), violations, unservable),
    );
  }
  if (!isJsonObject(value)) return refuse(value, 'object', path, violations);
  const read: Record<string, unknown> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    // JSON may name a field `__proto__`: no Go type has one, and writing it would set the result's prototype.
    if (field === '__proto__') continue;
    // Own fields only: `constructor` or `toString` are not fields of the shape.
    const fieldShape = 'map' in shape ? shape.map : Object.hasOwn(shape.object, field) ? shape.object[field] : undefined;
    const kept = fieldShape === undefined ? fieldValue : readShape(fieldValue, fieldShape, fieldPath(path, field), violations, unservable);
    if (kept !== undefined && kept !== null) read[field] = kept;
  }
  for (const field of ('object' in shape && shape.required) || []) {
    if (value[field] === undefined || value[field] === null) violations.add(fieldPath(path, field), 'in body is required');
  }
  return read;
}

/** kube-openapi's first complaint about a string, in its order: too long, too short, not matching. */
function textProblem(value: string, { minLength, maxLength, pattern }: TextBounds): string | undefined {
  // Its lengths count characters (runes), not UTF-16 units.
  const length = [...value].length;
  if (maxLength !== undefined && length > maxLength) return `in body should be at most ${maxLength} chars long`;
  if (minLength !== undefined && length < minLength) return `in body should be at least ${minLength} chars long`;
  if (pattern === undefined) return undefined;
  let regex = patterns.get(pattern);
  if (!regex) patterns.set(pattern, (regex = new RegExp(pattern, 'u')));
  return regex.test(value) ? undefined : `in body should match '${pattern}'`;
}

function matchesScalar(value: unknown, shape: 'string' | 'integer' | 'number' | 'boolean' | 'int-or-string'): boolean {
  switch (shape) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'int-or-string':
      return typeof value === 'string' || typeof value === 'number';
  }
}

/** The JSON type a shape takes, as kube-openapi names it. */
function jsonTypeOf(shape: SpecShape): string {
  if (typeof shape === 'string') return shape === 'int-or-string' ? 'string' : shape;
  if ('served' in shape) return servedJsonType(shape);
  return 'list' in shape ? 'array' : 'oneOf' in shape || 'text' in shape ? 'string' : 'object';
}

function refuse(value: unknown, expected: string, path: string, violations: ViolationList): undefined {
  violations.add(path, typeMessage(expected, value));
  return undefined;
}

/** kube-openapi's message for a value of the wrong JSON type. */
export function typeMessage(expected: string, value: unknown): string {
  const actual =
    value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value === 'boolean' ? 'boolean' : typeof value;
  return `in body must be of type ${expected}: ${JSON.stringify(actual)}`;
}
