// xDS resources as Kuma's dumps write them (proto3 JSON with camelCase json names), flattened into
// leaves with stable paths, so that two configurations compare field by field.
import protobuf from 'protobufjs';
import { decodeResource } from '../../../src/main/xds/protocol/decode.js';
import { encodeResource } from '../../../src/main/xds/protocol/encode.js';
import { hasSpecialJson, type ProtoJson } from '../../../src/main/xds/protocol/proto-json.js';
import { findMessageType } from '../../../src/main/xds/protocol/proto-root.js';
import { TYPE_URL_PREFIX } from '../../../src/main/xds/protocol/type-urls.js';

/** A resource in Kuma's JSON form, without its top-level `@type`. */
export type KumaJson = Record<string, unknown>;

/**
 * meshdesk's resource (proto names, snake_case) in the form Kuma's goldens use: encoded and decoded
 * (so that defaults drop out exactly as a proto3 JSON printer drops them), then every field renamed
 * to its json name. Map keys (metadata, typed options) are left alone.
 */
export function toKumaJson(typeUrl: string, resource: ProtoJson): KumaJson {
  const decoded = decodeResource(encodeResource(typeUrl, resource)) as Record<string, unknown>;
  const { '@type': _type, ...rest } = camelCased(typeOf(typeUrl)!, decoded) as Record<string, unknown>;
  return rest;
}

function typeOf(typeUrl: string): protobuf.Type | undefined {
  return typeUrl.startsWith(TYPE_URL_PREFIX) ? findMessageType(typeUrl.slice(TYPE_URL_PREFIX.length)) : undefined;
}

function camelCased(type: protobuf.Type, json: unknown): unknown {
  if (hasSpecialJson(type.fullName)) {
    if (type.fullName !== '.google.protobuf.Any') return json;
    const any = json as Record<string, unknown>;
    const inner = typeOf(String(any['@type']));
    return inner && !hasSpecialJson(inner.fullName) ? camelCased(inner, any) : any;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
    if (!field) {
      out[key] = value; // '@type'
      continue;
    }
    const resolved = field.resolvedType;
    const convert = (item: unknown): unknown => (resolved instanceof protobuf.Type ? camelCased(resolved, item) : item);
    out[jsonName(key)] = field.map
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convert(v)]))
      : field.repeated
        ? (value as unknown[]).map(convert)
        : convert(value);
  }
  return out;
}

/** protoc's json_name: each `_x` becomes `X`. */
function jsonName(protoName: string): string {
  return protoName.replace(/_(\w)/g, (_, next: string) => next.toUpperCase());
}

/** One scalar (or empty object/array) of a resource at its path, with its value as JSON. */
export interface Leaf {
  path: string;
  value: string;
}

/**
 * Every leaf of a resource. Array items are keyed by what identifies them rather than by position
 * where they have such a thing (`routes[match=…]`, `filters[name=…]`, `lbEndpoints[endpoint=ip:port]`),
 * so that one extra item does not shift every later one. Keys that are not identifiers are bracketed.
 */
export function leaves(json: unknown): Leaf[] {
  const found: Leaf[] = [];
  walk(json, '', found);
  return found;
}

function walk(value: unknown, path: string, found: Leaf[]): void {
  if (Array.isArray(value)) {
    if (value.length === 0) found.push({ path, value: '[]' });
    const seen = new Map<string, number>();
    value.forEach((item, index) => {
      const key = arrayItemKey(item, index);
      const count = seen.get(key) ?? 0;
      seen.set(key, count + 1);
      walk(item, `${path}[${key}${count > 0 ? `#${count}` : ''}]`, found);
    });
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) found.push({ path, value: '{}' });
    for (const [key, child] of entries) walk(child, childPath(path, key), found);
    return;
  }
  found.push({ path, value: JSON.stringify(value) });
}

/** The path of a field below `path`, the way leaves() writes it. */
export function childPath(path: string, key: string): string {
  return /^[A-Za-z_@][\w@]*$/.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
}

/** How leaves() names an array item: by its identity where it has one, else by position. */
export function arrayItemKey(item: unknown, index: number): string {
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const record = item as Record<string, unknown>;
    // A route by what it matches, not its name: route names are among what is compared.
    if (record.match !== undefined) return `match=${canonicalJson(record.match)}`;
    if (typeof record.name === 'string') return `name=${record.name}`;
    const socket = (record.endpoint as { address?: { socketAddress?: { address?: string; portValue?: number } } } | undefined)
      ?.address?.socketAddress;
    if (socket) return `endpoint=${socket.address}:${socket.portValue ?? 0}`;
  }
  return String(index);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The leaf path a JSON pointer into a resource (as in Kuma's config diff) names, keyed like leaves(). */
export function pointerToPath(resource: unknown, pointer: readonly string[]): string {
  let path = '';
  let value: unknown = resource;
  for (const token of pointer) {
    if (Array.isArray(value)) {
      const index = Number(token);
      path = `${path}[${arrayItemKey(value[index], index)}]`;
      value = value[index];
    } else {
      path = childPath(path, token);
      value = (value as Record<string, unknown> | undefined)?.[token];
    }
  }
  return path;
}
