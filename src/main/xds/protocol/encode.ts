import protobuf from 'protobufjs';
import { findMessageType, fullNameOf, messageType } from './proto-root.js';
import {
  MAX_DURATION_SECONDS,
  SIXTY_FOUR_BIT_SCALARS,
  WELL_KNOWN,
  WRAPPER_SCALARS,
  hasSpecialJson,
  integerRange,
  type EncodedAny,
  type ProtoJson,
} from './proto-json.js';
import { deepFreeze } from '../../../shared/deep-freeze.js';
import { TYPE_URL_PREFIX, shortTypeName } from './type-urls.js';
import { isRequiredOneof, ruleViolations, ruledFields } from './validation-rules.js';

/**
 * The guard between meshdesk's generated JSON and the wire. protobufjs's `fromObject` drops unknown
 * fields and enum names without a word and encodes an Any of an unknown type as an empty Any; this
 * encoder walks the JSON with the reflection types first and refuses all of that, plus Envoy's
 * cheap PGV rules, naming the resource and the field path of every problem.
 */

export interface EncodingViolation {
  /** Field path inside the resource, e.g. `filter_chains[0].filters[0].typed_config.stat_prefix`. */
  path: string;
  problem: string;
}

/** A resource that does not fit its Envoy proto: every violation, each with its field path. */
export class ResourceEncodingError extends Error {
  override readonly name = 'ResourceEncodingError';
  constructor(
    /** Names the resource, e.g. `lds resource "outbound:127.0.0.1:10001"`. */
    readonly resource: string,
    readonly violations: readonly EncodingViolation[],
  ) {
    super(`cannot encode ${resource}: ${violations.map((v) => `${v.path || '(root)'}: ${v.problem}`).join('; ')}`);
  }
}

/**
 * Encodes one xDS resource written in proto3 JSON (see ProtoJson) as the Any a DiscoveryResponse
 * carries. Throws ResourceEncodingError on any field, enum, type or rule Envoy would not accept.
 */
export function encodeResource(typeUrl: string, resource: ProtoJson): EncodedAny {
  // Built only for an error: a tick encodes hundreds of resources.
  const label = () => `${shortTypeName(typeUrl)} resource "${resourceName(resource)}"`;
  if (!typeUrl.startsWith(TYPE_URL_PREFIX)) {
    throw new ResourceEncodingError(label(), [{ path: '', problem: `type URL "${typeUrl}" must start with "${TYPE_URL_PREFIX}"` }]);
  }
  const type = findMessageType(typeUrl.slice(TYPE_URL_PREFIX.length));
  if (!type) throw new ResourceEncodingError(label(), [{ path: '', problem: `type URL "${typeUrl}" names no message of the Envoy proto root` }]);
  return { type_url: typeUrl, value: encodeChecked(type, resource, label) };
}

/**
 * Encodes any message of the proto root from proto3 JSON, with the same checks as encodeResource
 * (e.g. `envoy.config.bootstrap.v3.Bootstrap` to validate a generated bootstrap).
 * `label` names the message in errors.
 */
export function encodeMessage(typeName: string, json: unknown, label: string = typeName): Uint8Array {
  return encodeChecked(messageType(typeName), json, () => label);
}

function encodeChecked(type: protobuf.Type, json: unknown, label: () => string): Uint8Array {
  // The conversions are cached by object: what has been encoded must never change again. Frozen,
  // a later change throws where it is made instead of sending stale bytes.
  deepFreeze(json);
  const converter = new JsonToProto();
  const converted = converter.single(type, json, '');
  if (converter.violations.length > 0 || converted === undefined) throw new ResourceEncodingError(label(), converter.violations);
  return bytesOf(type, converted);
}

/** Listener, Cluster and RouteConfiguration are named by `name`, a ClusterLoadAssignment by `cluster_name`. */
function resourceName(resource: ProtoJson): string {
  const name = resource.name ?? resource.cluster_name;
  return typeof name === 'string' ? name : '(unnamed)';
}

type ProtoObject = Record<string, unknown>;

/** A message converted and checked, already in its wire bytes: a parent writes them as they are. */
class EncodedMessage {
  constructor(readonly bytes: Uint8Array) {}
}

/** What a message field's JSON converts to: its bytes, or, for the well-known types, the object protobufjs encodes. */
type ConvertedMessage = EncodedMessage | ProtoObject;

/**
 * Conversions that succeeded, by JSON object and message type. Resources are never changed in
 * place once generated (they are shared, and frozen deeply when encoded), and policy edits share the parts they leave
 * alone, so the parts many resources have in common (a service's cluster settings, a filter's
 * typed config) are checked and encoded once, and a resource that differs from another in one
 * field costs that field only.
 */
const convertedByObject = new WeakMap<object, { type: protobuf.Type; converted: ConvertedMessage }>();

/**
 * Conversions of well-known types written as a bare value, by type and value: a mesh's clusters
 * repeat a few wrapper numbers and durations thousands of times. Bounded per type: a type that
 * collects more distinct values than this starts over.
 */
const convertedByBareValue = new Map<protobuf.Type, Map<unknown, ConvertedMessage>>();
const BARE_VALUES_PER_TYPE = 10_000;

/**
 * The bytes of a well-known type's converted form (a wrapper's `{ value }`, a Duration's
 * `{ seconds, nanos }`, an Any's `{ type_url, value }`), which stays a plain object for the
 * parent's rule checks.
 */
const wellKnownBytes = new WeakMap<ProtoObject, Uint8Array>();

/**
 * Whether the encoder has converted a part of this resource before, found by object: then the
 * resource is an edit of encoded ones (an edit shares the parts it leaves alone) and encoding it
 * costs its new parts only. Looks at the resource's values and their items, where an edit's shared
 * parts are: cheap, and a resource built anew (every object new, e.g. a new MeshContext's) says no.
 */
export function hasEncodedParts(resource: ProtoJson): boolean {
  for (const value of Object.values(resource)) {
    if (typeof value !== 'object' || value === null) continue;
    if (convertedByObject.has(value)) return true;
    for (const item of Object.values(value)) if (typeof item === 'object' && item !== null && convertedByObject.has(item)) return true;
  }
  return false;
}

/**
 * Converts proto3 JSON into the plain object protobufjs's `fromObject` takes (enums as numbers,
 * Any as type_url + bytes, wrappers as `{ value }`...), collecting a violation for everything it
 * cannot convert exactly. Returns undefined for a value it rejected.
 */
class JsonToProto {
  readonly violations: EncodingViolation[] = [];

  /**
   * A value of message type `type`: from the cache when this very object converted before, or,
   * for a well-known type written as a bare value (a wrapper's number, a Duration's "5s"), when
   * this value did.
   */
  single(type: protobuf.Type, json: unknown, path: string): ConvertedMessage | undefined {
    if (typeof json !== 'object' || json === null) return this.bareValue(type, json, path);
    const known = convertedByObject.get(json);
    if (known?.type === type) return known.converted;
    const violationsBefore = this.violations.length;
    const converted = this.message(type, json, path);
    // One type per object: an object read as two types (an empty `{}` constant) keeps the last.
    if (converted !== undefined && this.violations.length === violationsBefore) convertedByObject.set(json, { type, converted });
    return converted;
  }

  private bareValue(type: protobuf.Type, json: unknown, path: string): ConvertedMessage | undefined {
    let byValue = convertedByBareValue.get(type);
    const known = byValue?.get(json);
    if (known) return known;
    const violationsBefore = this.violations.length;
    const converted = this.message(type, json, path);
    // A Map key takes -0 for 0, and a DoubleValue of -0 is not one of 0.
    if (converted === undefined || this.violations.length > violationsBefore || Object.is(json, -0)) return converted;
    if (!byValue || byValue.size >= BARE_VALUES_PER_TYPE) convertedByBareValue.set(type, (byValue = new Map()));
    byValue.set(json, Object.freeze(converted));
    return converted;
  }

  /** `anyContent`: the JSON is an Any's, whose `@type` names the type and is not one of its fields. */
  private message(type: protobuf.Type, json: unknown, path: string, anyContent = false): ConvertedMessage | undefined {
    const violationsBeforeSpecial = this.violations.length;
    const special = this.wellKnown(type, json, path);
    if (special !== NOT_SPECIAL) {
      // Written once here, not by protobufjs again each time a parent is written.
      if (special !== undefined && this.violations.length === violationsBeforeSpecial) wellKnownBytes.set(special, type.encode(type.fromObject(special)).finish());
      return special;
    }
    if (!isPlainObject(json)) return this.reject(path, `expected an object (${typeName(type)}), got ${describe(json)}`);
    const object: ProtoObject = {};
    let oneofMembersSet = 0;
    for (const key of Object.keys(json)) {
      if (anyContent && key === '@type') continue;
      const value = json[key];
      const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
      const fieldPath = joinPath(path, key);
      if (!field) {
        this.reject(fieldPath, `unknown field of ${typeName(type)}${spellingHint(type, key)}`);
        continue;
      }
      // proto3 JSON: null stands for the default value, except in a google.protobuf.Value.
      if (value === null && !isValueField(field)) continue;
      if (field.partOf && value !== undefined && value !== null) oneofMembersSet++;
      const converted = this.field(field, value, fieldPath);
      if (converted !== undefined) object[key] = converted;
    }
    const violationsBefore = this.violations.length;
    // Only two members set or a required oneof can break a oneof rule: most messages have neither.
    if (oneofMembersSet > 1 || hasRequiredOneof(type)) this.checkOneofs(type, json, path);
    this.checkRules(type, json, object, path);
    // A message with a problem is never written (the whole encode throws); it still stands for a set field.
    return this.violations.length > violationsBefore ? object : new EncodedMessage(writeMessage(type, object));
  }

  private field(field: protobuf.Field, value: unknown, path: string): unknown {
    if (field.map) {
      if (!isPlainObject(value)) return this.reject(path, `expected an object (map), got ${describe(value)}`);
      const map: ProtoObject = {};
      for (const [key, entry] of Object.entries(value)) {
        const entryPath = `${path}[${JSON.stringify(key)}]`;
        const keyType = (field as unknown as protobuf.MapField).keyType;
        if (keyType !== 'string' && keyType !== 'bool' && this.integer(keyType, key, entryPath) === undefined) continue;
        const converted = this.value(field, entry, entryPath);
        if (converted !== undefined) map[key] = converted;
      }
      return map;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) return this.reject(path, `expected an array, got ${describe(value)}`);
      const items = value.map((item, index) => this.value(field, item, `${path}[${index}]`));
      return items.includes(undefined) ? undefined : items;
    }
    return this.value(field, value, path);
  }

  private value(field: protobuf.Field, value: unknown, path: string): unknown {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) return this.single(resolved, value, path);
    if (resolved instanceof protobuf.Enum) return this.enumValue(resolved, value, path);
    return this.scalar(field.type, value, path);
  }

  private enumValue(type: protobuf.Enum, value: unknown, path: string): number | undefined {
    if (typeof value === 'string' && Object.hasOwn(type.values, value)) return type.values[value];
    if (typeof value === 'number' && Object.hasOwn(type.valuesById, value)) return value;
    const known = Object.keys(type.values).join(', ');
    return this.reject(path, `unknown enum value ${JSON.stringify(value)} of ${typeName(type)} (known: ${known})`);
  }

  /** Scalars as proto3 JSON writes them; 64-bit integers stay decimal strings for protobufjs's Long. */
  private scalar(kind: string, value: unknown, path: string): unknown {
    switch (kind) {
      case 'string':
        return typeof value === 'string' ? value : this.expected('a string', kind, value, path);
      case 'bool':
        return typeof value === 'boolean' ? value : this.expected('true or false', kind, value, path);
      case 'bytes':
        if (value instanceof Uint8Array) return value;
        return typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value) ? Buffer.from(value, 'base64') : this.expected('base64', kind, value, path);
      case 'double':
      case 'float':
        return this.floatingPoint(kind, value, path);
      default:
        return this.integer(kind, value, path);
    }
  }

  private expected(what: string, kind: string, value: unknown, path: string): undefined {
    return this.reject(path, `expected ${what} (${kind}), got ${describe(value)}`);
  }

  private floatingPoint(kind: string, value: unknown, path: string): number | undefined {
    const special: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
    if (typeof value === 'string' && value in special) return special[value];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) return this.reject(path, `expected a number (${kind}), got ${describe(value)}`);
    if (kind === 'float' && Math.abs(number) > 3.4028234663852886e38) return this.reject(path, `${number} does not fit a float`);
    return number;
  }

  private integer(kind: string, value: unknown, path: string): number | string | undefined {
    // The common case, a 32-bit field given an integer in range, without the text and BigInt checks.
    if (typeof value === 'number' && Number.isSafeInteger(value) && !SIXTY_FOUR_BIT_SCALARS.has(kind)) {
      const unsigned = kind.startsWith('uint') || kind.startsWith('fixed');
      if (unsigned ? value >= 0 && value <= 0xffffffff : value >= -0x80000000 && value <= 0x7fffffff) return value === 0 ? 0 : value;
    }
    const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : undefined) : typeof value === 'string' ? value : undefined;
    if (text === undefined || !/^-?\d+$/.test(text)) return this.reject(path, `expected an integer (${kind}), got ${describe(value)}`);
    const { min, max } = integerRange(kind);
    const integer = BigInt(text);
    if (integer < min || integer > max) return this.reject(path, `${text} is out of range for ${kind} (${min}..${max})`);
    return SIXTY_FOUR_BIT_SCALARS.has(kind) ? text : Number(text);
  }

  /** proto3 JSON forms of the well-known types; NOT_SPECIAL for every other type. */
  private wellKnown(type: protobuf.Type, json: unknown, path: string): ProtoObject | undefined | typeof NOT_SPECIAL {
    const fullName = fullNameOf(type);
    const wrapped = WRAPPER_SCALARS[fullName];
    if (wrapped) {
      const value = this.scalar(wrapped, json, path);
      return value === undefined ? undefined : { value };
    }
    switch (fullName) {
      case WELL_KNOWN.any:
        return this.any(json, path);
      case WELL_KNOWN.duration:
        return this.duration(json, path);
      case WELL_KNOWN.timestamp:
        return this.timestamp(json, path);
      case WELL_KNOWN.struct:
        if (!isPlainObject(json)) return this.reject(path, `expected an object (google.protobuf.Struct), got ${describe(json)}`);
        return { fields: this.structFields(json, path) };
      case WELL_KNOWN.value:
        return this.structValue(json, path);
      case WELL_KNOWN.listValue:
        if (!Array.isArray(json)) return this.reject(path, `expected an array (google.protobuf.ListValue), got ${describe(json)}`);
        return { values: json.map((item, index) => this.structValue(item, `${path}[${index}]`)) };
      case WELL_KNOWN.fieldMask:
        if (typeof json !== 'string') return this.reject(path, `expected a comma-separated string (google.protobuf.FieldMask), got ${describe(json)}`);
        return { paths: json === '' ? [] : json.split(',') };
      default:
        return NOT_SPECIAL;
    }
  }

  /** `{ "@type": "type.googleapis.com/<full name>", ...fields }`: the type must be in this root, or protobufjs would encode an empty Any. */
  private any(json: unknown, path: string): ProtoObject | undefined {
    if (!isPlainObject(json)) return this.reject(path, `expected an object with "@type" (google.protobuf.Any), got ${describe(json)}`);
    const typePath = joinPath(path, '@type');
    const typeUrl = json['@type'];
    if (typeof typeUrl !== 'string') return this.reject(typePath, 'is required: an Any names its type');
    if (!typeUrl.startsWith(TYPE_URL_PREFIX)) return this.reject(typePath, `type URL "${typeUrl}" must start with "${TYPE_URL_PREFIX}"`);
    const type = findMessageType(typeUrl.slice(TYPE_URL_PREFIX.length));
    if (!type) return this.reject(typePath, `unknown type "${typeUrl}": not in the Envoy proto root, it would encode as an empty Any`);
    let object: ConvertedMessage | undefined;
    if (hasSpecialJson(fullNameOf(type))) {
      // A well-known type inside an Any is written `{ "@type": …, "value": <its JSON form> }`.
      const extra = Object.keys(json).find((key) => key !== '@type' && key !== 'value');
      if (extra !== undefined) return this.reject(joinPath(path, extra), `unknown field: an Any of ${typeName(type)} holds only "value"`);
      object = this.message(type, json.value, joinPath(path, 'value'));
    } else {
      object = this.message(type, json, path, true);
    }
    if (object === undefined) return undefined;
    return { type_url: typeUrl, value: bytesOf(type, object) };
  }

  /** "1.5s", "-0.000000001s": seconds with up to nine fractional digits. */
  private duration(json: unknown, path: string): ProtoObject | undefined {
    const match = typeof json === 'string' ? /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(json) : null;
    if (!match) return this.reject(path, `expected a duration string such as "5s" or "0.250s" (google.protobuf.Duration), got ${describe(json)}`);
    const [, minus, whole, fraction = ''] = match;
    const seconds = Number(whole);
    if (seconds > MAX_DURATION_SECONDS) return this.reject(path, `${json} is longer than the longest duration (${MAX_DURATION_SECONDS}s)`);
    const nanos = Number(fraction.padEnd(9, '0'));
    const sign = minus ? -1 : 1;
    return { seconds: String(sign * seconds), nanos: sign * nanos };
  }

  /** RFC 3339, e.g. "2024-01-02T03:04:05.5Z" or with an offset. */
  private timestamp(json: unknown, path: string): ProtoObject | undefined {
    const match =
      typeof json === 'string' ? /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(json) : null;
    const millis = match ? Date.parse(`${match[1]}${match[3]}`) : NaN;
    if (!match || Number.isNaN(millis)) return this.reject(path, `expected an RFC 3339 timestamp such as "2024-01-02T03:04:05Z", got ${describe(json)}`);
    return { seconds: String(millis / 1000), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
  }

  // protobufjs bundles Struct and Value with camelCase field names (stringValue), whatever keepCase says.
  private structFields(json: Record<string, unknown>, path: string): ProtoObject {
    return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, this.structValue(value, `${path}[${JSON.stringify(key)}]`)]));
  }

  private structValue(json: unknown, path: string): ProtoObject | undefined {
    if (json === null) return { nullValue: 0 };
    if (typeof json === 'number') return Number.isFinite(json) ? { numberValue: json } : this.reject(path, `${json} has no JSON form`);
    if (typeof json === 'string') return { stringValue: json };
    if (typeof json === 'boolean') return { boolValue: json };
    if (Array.isArray(json)) return { listValue: { values: json.map((item, index) => this.structValue(item, `${path}[${index}]`)) } };
    if (isPlainObject(json)) return { structValue: { fields: this.structFields(json, path) } };
    return this.reject(path, `expected a JSON value (google.protobuf.Value), got ${describe(json)}`);
  }

  /** Two members of one oneof is a config Envoy rejects; protobufjs would keep one silently. */
  private checkOneofs(type: protobuf.Type, json: Record<string, unknown>, path: string): void {
    for (const oneof of type.oneofsArray) {
      let setCount = 0;
      for (const name of oneof.oneof) if (json[name] !== undefined && json[name] !== null) setCount++;
      if (setCount > 1) {
        const set = oneof.oneof.filter((name) => json[name] !== undefined && json[name] !== null);
        this.reject(path, `${set.join(' and ')} are both set, but only one of oneof "${oneof.name}" may be`);
      }
      if (setCount === 0 && isRequiredOneof(oneof)) {
        this.reject(path, `one of ${oneof.oneof.join(', ')} is required (oneof "${oneof.name}", validate.required)`);
      }
    }
  }

  private checkRules(type: protobuf.Type, json: Record<string, unknown>, object: ProtoObject, path: string): void {
    for (const { field, whenUnset } of ruledFields(type)) {
      const value = object[field.name];
      if (value !== undefined) {
        for (const { at, problem } of ruleViolations(field, value)) this.reject(`${joinPath(path, field.name)}${at}`, problem);
        continue;
      }
      // A value that failed to convert already has its violation; its rules would only add noise.
      if (whenUnset.length === 0 || (json[field.name] !== undefined && json[field.name] !== null)) continue;
      for (const { at, problem } of whenUnset) this.reject(`${joinPath(path, field.name)}${at}`, problem);
    }
  }

  private reject(path: string, problem: string): undefined {
    this.violations.push({ path, problem });
    return undefined;
  }
}

const NOT_SPECIAL = Symbol('not a well-known type');

const requiredOneofs = new WeakMap<protobuf.Type, boolean>();

function hasRequiredOneof(type: protobuf.Type): boolean {
  let required = requiredOneofs.get(type);
  if (required === undefined) requiredOneofs.set(type, (required = type.oneofsArray.some(isRequiredOneof)));
  return required;
}

/** The converted fields of `object` by number: the order protobufjs's encoder writes them in ("sequentially by field number"). */
function setFieldsInWireOrder(type: protobuf.Type, object: ProtoObject): protobuf.Field[] {
  // The fields set, not all of the type's: a Cluster has ~50 fields, a cluster sets a few.
  return Object.keys(object)
    .map((name) => type.fields[name]!)
    .sort(byFieldNumber);
}

function byFieldNumber(a: protobuf.Field, b: protobuf.Field): number {
  return a.id - b.id;
}

function bytesOf(type: protobuf.Type, converted: ConvertedMessage): Uint8Array {
  if (converted instanceof EncodedMessage) return converted.bytes;
  return wellKnownBytes.get(converted) ?? type.encode(type.fromObject(converted)).finish();
}

/**
 * The bytes protobufjs's `type.encode(type.fromObject(object))` writes, field by field as its
 * generated encoder does: fields in number order, each message as its tag and length-delimited
 * bytes (already written), map entries as key then value, repeated scalars packed where the field is.
 */
function writeMessage(type: protobuf.Type, object: ProtoObject): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const field of setFieldsInWireOrder(type, object)) {
    const value = object[field.name];
    const fieldType = field.resolvedType;
    if (fieldType instanceof protobuf.Type) writeMessageField(writer, field, fieldType, value);
    else writeScalarField(writer, field, value);
  }
  return writer.finish();
}

type ScalarWriter = (this: protobuf.Writer, value: unknown) => protobuf.Writer;

function scalarWriter(writer: protobuf.Writer, kind: string): ScalarWriter {
  return (writer as unknown as Record<string, ScalarWriter>)[kind]!;
}

/** A map entry's key, as protobufjs writes it: field 1 of the entry, by the key's type. */
function writeMapKey(writer: protobuf.Writer, field: protobuf.Field, key: string): void {
  const keyType = (field as unknown as protobuf.MapField).keyType;
  scalarWriter(writer, keyType).call(writer.uint32(((field.id << 3) | 2) >>> 0).fork().uint32(8 | (protobuf.types.mapKey as Record<string, number>)[keyType]!), key);
}

function writeMessageField(writer: protobuf.Writer, field: protobuf.Field, fieldType: protobuf.Type, value: unknown): void {
  const tag = ((field.id << 3) | 2) >>> 0;
  if (field.map) {
    for (const [key, entry] of Object.entries(value as Record<string, ConvertedMessage>)) {
      writeMapKey(writer, field, key);
      writer.uint32(18).bytes(bytesOf(fieldType, entry)).ldelim();
    }
  } else if (field.repeated) {
    for (const item of value as ConvertedMessage[]) writer.uint32(tag).bytes(bytesOf(fieldType, item));
  } else {
    writer.uint32(tag).bytes(bytesOf(fieldType, value as ConvertedMessage));
  }
}

/** Scalars and enums (as int32) as converted (64-bit integers as decimal strings, which protobufjs's writer reads as fromObject's Long). */
function writeScalarField(writer: protobuf.Writer, field: protobuf.Field, value: unknown): void {
  const kind = field.resolvedType instanceof protobuf.Enum ? 'int32' : field.type;
  const wireType = (protobuf.types.basic as Record<string, number>)[kind]!;
  const write = scalarWriter(writer, kind);
  if (field.map) {
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      writeMapKey(writer, field, key);
      write.call(writer.uint32(16 | wireType), entry).ldelim();
    }
  } else if (field.repeated) {
    const items = value as unknown[];
    if (items.length === 0) return;
    if (field.packed && (protobuf.types.packed as Record<string, number | undefined>)[kind] !== undefined) {
      writer.uint32(((field.id << 3) | 2) >>> 0).fork();
      for (const item of items) write.call(writer, item);
      writer.ldelim();
    } else {
      for (const item of items) write.call(writer.uint32(((field.id << 3) | wireType) >>> 0), item);
    }
  } else {
    write.call(writer.uint32(((field.id << 3) | wireType) >>> 0), value);
  }
}

function isValueField(field: protobuf.Field): boolean {
  return field.resolvedType instanceof protobuf.Type && fullNameOf(field.resolvedType) === WELL_KNOWN.value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function typeName(type: protobuf.ReflectionObject): string {
  return fullNameOf(type).slice(1);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'bytes';
  const text = JSON.stringify(value);
  return text === undefined ? typeof value : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** "statPrefix" → ` (did you mean "stat_prefix"?)`: proto3 JSON's camelCase names are not what Envoy's docs write. */
function spellingHint(type: protobuf.Type, key: string): string {
  const snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return snake !== key && Object.hasOwn(type.fields, snake) ? ` (did you mean "${snake}"?)` : '';
}
