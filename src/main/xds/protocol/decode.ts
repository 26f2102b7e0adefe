import protobuf from 'protobufjs';
import { findMessageType, messageType } from './proto-root.js';
import { SIXTY_FOUR_BIT_SCALARS, WELL_KNOWN, WRAPPER_SCALARS, defaultScalar, hasSpecialJson, type EncodedAny, type ProtoJson } from './proto-json.js';
import { TYPE_URL_PREFIX } from './type-urls.js';

/**
 * Bytes back to proto3 JSON, the form encodeResource takes: for config dumps, tests, and the
 * DiscoveryRequests the server reads. Fields at their default value are left out (as proto3 JSON
 * printers do), except oneof members and message fields, whose presence means something.
 */

/** The resource an Any carries, with its `@type` first (as Envoy's config dumps show it). */
export function decodeResource(any: EncodedAny): ProtoJson {
  return anyJson(any.type_url, any.value, PROTO_NAMES);
}

/**
 * The resource an Any carries as Go's protojson prints it (Kuma's API, `_config`): fields by their
 * JSON names (`connectTimeout`), no `@type` at the top (nested Anys keep theirs).
 */
export function decodeResourceJsonNames(any: EncodedAny): ProtoJson {
  const { '@type': _type, ...fields } = anyJson(any.type_url, any.value, JSON_NAMES) as ProtoJson & { '@type'?: string };
  return fields;
}

export function decodeMessage(typeName: string, bytes: Uint8Array): ProtoJson {
  const type = messageType(typeName);
  return messageJson(type, type.decode(bytes) as unknown as Message, PROTO_NAMES) as ProtoJson;
}

type Message = Record<string, unknown>;

/** How a field is named in the JSON: its proto name (Envoy's config dumps) or its JSON name (protojson's default). */
type FieldNaming = (field: protobuf.Field) => string;
const PROTO_NAMES: FieldNaming = (field) => field.name;
const JSON_NAMES: FieldNaming = (field) => protobuf.util.camelCase(field.name);

function messageJson(type: protobuf.Type, message: Message, naming: FieldNaming): unknown {
  const wrapped = WRAPPER_SCALARS[type.fullName];
  if (wrapped) return scalarJson(wrapped, message.value ?? defaultScalar(wrapped));
  switch (type.fullName) {
    case WELL_KNOWN.any:
      return anyJson(message.type_url as string, message.value as Uint8Array, naming);
    case WELL_KNOWN.duration:
      return durationJson(message);
    case WELL_KNOWN.timestamp:
      return timestampJson(message);
    case WELL_KNOWN.struct:
      return structJson(message);
    case WELL_KNOWN.value:
      return valueJson(message);
    case WELL_KNOWN.listValue:
      return ((message.values as Message[] | undefined) ?? []).map(valueJson);
    case WELL_KNOWN.fieldMask:
      return ((message.paths as string[] | undefined) ?? []).join(',');
  }
  const json: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (isPresent(field, message)) json[naming(field)] = fieldJson(field, message[field.name], naming);
  }
  return json;
}

function isPresent(field: protobuf.Field, message: Message): boolean {
  if (!Object.hasOwn(message, field.name)) return false;
  const value = message[field.name];
  if (value === null || value === undefined) return false;
  if (field.map) return Object.keys(value).length > 0;
  if (field.repeated) return (value as unknown[]).length > 0;
  if (field.resolvedType instanceof protobuf.Type || field.partOf) return true;
  return !isDefaultScalar(value);
}

function fieldJson(field: protobuf.Field, value: unknown, naming: FieldNaming): unknown {
  if (field.map) return Object.fromEntries(Object.entries(value as Message).map(([key, entry]) => [key, singleJson(field, entry, naming)]));
  if (field.repeated) return (value as unknown[]).map((item) => singleJson(field, item, naming));
  return singleJson(field, value, naming);
}

function singleJson(field: protobuf.Field, value: unknown, naming: FieldNaming): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageJson(resolved, value as Message, naming);
  if (resolved instanceof protobuf.Enum) return resolved.valuesById[value as number] ?? value;
  return scalarJson(field.type, value);
}

function scalarJson(kind: string, value: unknown): unknown {
  if (SIXTY_FOUR_BIT_SCALARS.has(kind)) return String(value); // a Long or a number; proto3 JSON writes 64-bit integers as strings
  if (kind === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if ((kind === 'double' || kind === 'float') && !Number.isFinite(value)) return String(value);
  return value;
}

/**
 * An Any of a type this root does not know cannot be expanded: it is shown as its type URL and
 * base64 bytes rather than failing, since the server also decodes what clients send.
 */
function anyJson(typeUrl: string, value: Uint8Array, naming: FieldNaming): ProtoJson {
  const type = typeUrl.startsWith(TYPE_URL_PREFIX) ? findMessageType(typeUrl.slice(TYPE_URL_PREFIX.length)) : undefined;
  if (!type) return { '@type': typeUrl, value: Buffer.from(value).toString('base64') };
  const inner = messageJson(type, type.decode(value) as unknown as Message, naming);
  return hasSpecialJson(type.fullName) ? { '@type': typeUrl, value: inner } : { '@type': typeUrl, ...(inner as ProtoJson) };
}

/** `{ seconds: 1, nanos: 500000000 }` → "1.500s": 0, 3, 6 or 9 fractional digits, as protobuf prints it. */
function durationJson(message: Message): string {
  const seconds = Number(String(message.seconds ?? 0));
  const nanos = Number(message.nanos ?? 0);
  const negative = seconds < 0 || nanos < 0;
  return `${negative ? '-' : ''}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
}

function timestampJson(message: Message): string {
  const seconds = Number(String(message.seconds ?? 0));
  const nanos = Number(message.nanos ?? 0);
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

// protobufjs bundles Struct and Value with camelCase field names (stringValue), whatever keepCase says.
function structJson(message: Message): Record<string, unknown> {
  const fields = (message.fields as Record<string, Message> | undefined) ?? {};
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, valueJson(value)]));
}

function valueJson(message: Message): unknown {
  if (Object.hasOwn(message, 'numberValue')) return message.numberValue;
  if (Object.hasOwn(message, 'stringValue')) return message.stringValue;
  if (Object.hasOwn(message, 'boolValue')) return message.boolValue;
  if (Object.hasOwn(message, 'structValue')) return structJson(message.structValue as Message);
  if (Object.hasOwn(message, 'listValue')) return ((message.listValue as Message).values as Message[] | undefined ?? []).map(valueJson);
  return null;
}

function isDefaultScalar(value: unknown): boolean {
  if (value instanceof Uint8Array) return value.length === 0;
  if (typeof value === 'object' && value !== null) return String(value) === '0'; // a zero Long
  return value === 0 || value === '' || value === false;
}
