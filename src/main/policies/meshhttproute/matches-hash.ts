import { createHash } from 'node:crypto';

/**
 * The hash Kuma names a MeshHTTPRoute rule by (HashMatches): base64 of the sha256 of the rule's
 * whole `matches` list as Go's encoding/json writes it — its struct field order, empty fields
 * left out, and `<`, `>`, `&` escaped. Route names and `__rule-matches-hash__` subsets use it.
 */
export function hashMatches(matches: unknown): string {
  return createHash('sha256').update(goJson(matches ?? null)).digest('base64');
}

/** Go's field order of each object in a match list (Match, PathMatch, QueryParamsMatch, HeaderMatch). */
const FIELD_ORDER: readonly string[] = ['path', 'method', 'queryParams', 'headers', 'value', 'type', 'name'];
/** Fields Go always writes, even empty (no omitempty): PathMatch.value/type, QueryParamsMatch.*, HeaderMatch.name. */
const ORDER_BY_SHAPE: { readonly [shape: string]: readonly string[] } = {
  match: ['path', 'method', 'queryParams', 'headers'],
  path: ['value', 'type'],
  queryParam: ['type', 'name', 'value'],
  header: ['type', 'name', 'value'],
};

function goJson(value: unknown, shape = 'matches'): string {
  if (Array.isArray(value)) {
    const item = shape === 'matches' ? 'match' : shape === 'queryParams' ? 'queryParam' : shape === 'headers' ? 'header' : shape;
    return `[${value.map((each) => goJson(each, item)).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const order = ORDER_BY_SHAPE[shape] ?? FIELD_ORDER;
    const fields = order.filter((key) => record[key] !== undefined && record[key] !== null);
    return `{${fields.map((key) => `${goString(key)}:${goJson(record[key], key)}`).join(',')}}`;
  }
  return typeof value === 'string' ? goString(value) : JSON.stringify(value);
}

function goString(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}
