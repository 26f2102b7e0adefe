// How Kuma's API narrows and pages a list (pkg/api-server/{pagination.go,filters/filtering.go},
// pkg/core/resources/store/pagination_store.go): `name=`, `filter[labels.K]=V`, Dataplanes' `tag=` and
// `gateway=`, then `size`/`offset` over what is left, in (mesh, name) order.
import type { DataplaneSpec, Resource } from '../../shared/resources.js';
import type { ListBody } from '../../shared/api-types.js';
import { ApiError } from './api-error.js';

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
/** Kuma's title for any list that could not be answered. */
export const LIST_ERROR_TITLE = 'Could not retrieve resources';

/** A read list query: what to keep, and which page of it. */
export interface ListQuery {
  keep(resource: Resource): boolean;
  size: number;
  offset: number;
}

/**
 * Reads the query of a list request; `endpoint` is the route as Kuma names it in errors
 * (`/meshes/{mesh}/dataplanes`). `dataplaneFilters` allows `tag=` and `gateway=`.
 */
export function readListQuery(query: URLSearchParams, endpoint: string, dataplaneFilters: boolean): ListQuery {
  const size = readPageSize(query.get('size'));
  const offset = readOffset(query.get('offset'));
  const predicates: ((resource: Resource) => boolean)[] = [];
  const name = query.get('name');
  if (name) predicates.push((resource) => resource.meta.name.includes(name));
  predicates.push(...readLabelFilters(query, endpoint));
  if (dataplaneFilters) {
    predicates.push(...query.getAll('tag').map(readTagFilter));
    const gateway = query.get('gateway');
    if (gateway) predicates.push(readGatewayFilter(gateway));
  }
  return { keep: (resource) => predicates.every((keep) => keep(resource)), size, offset };
}

/**
 * Kuma's list envelope for one page; `next` is the absolute URL of the next page (the same query with
 * its `offset` moved), null on the last one. `requestUrl` is the URL the client asked for.
 */
export function pageOf<T>(items: T[], { size, offset }: Pick<ListQuery, 'size' | 'offset'>, requestUrl: URL): ListBody<T> {
  return { total: items.length, items: items.slice(offset, offset + size), next: nextPageUrl(requestUrl, { size, offset }, items.length) };
}

/** The URL of the page after this one (the same query with its `offset` moved), null when it is the last of `total`. */
export function nextPageUrl(requestUrl: URL, { size, offset }: Pick<ListQuery, 'size' | 'offset'>, total: number): string | null {
  const end = offset + size;
  if (end >= total) return null;
  const nextUrl = new URL(requestUrl.href);
  nextUrl.searchParams.set('offset', String(end));
  // Go's url.Values.Encode sorts keys, so Kuma's `next` does too.
  nextUrl.searchParams.sort();
  return nextUrl.href;
}

/** `size` and `offset` alone, for a paged answer that is not a resource list. */
export function readPage(query: URLSearchParams): Pick<ListQuery, 'size' | 'offset'> {
  return { size: readPageSize(query.get('size')), offset: readOffset(query.get('offset')) };
}

function readPageSize(text: string | null): number {
  if (text === null || text === '') return DEFAULT_PAGE_SIZE;
  const size = readGoInteger(text);
  if (size === undefined || size <= 0) throw invalidPageSize('invalid format');
  if (size > MAX_PAGE_SIZE) throw invalidPageSize(`invalid page size of ${size}. Maximum page size is ${MAX_PAGE_SIZE}`);
  return size;
}

function invalidPageSize(reason: string): ApiError {
  return new ApiError(400, LIST_ERROR_TITLE, 'Invalid page size', [{ field: 'size', message: reason }]);
}

/** The offset is an index into the filtered list, as Kuma's in-memory pagination reads it. */
function readOffset(text: string | null): number {
  if (text === null || text === '') return 0;
  const offset = readGoInteger(text);
  if (offset === undefined) {
    // Go's strconv.Atoi error, as Kuma passes it on.
    throw new ApiError(400, LIST_ERROR_TITLE, `invalid: invalid offset: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  if (offset < 0) throw new ApiError(400, LIST_ERROR_TITLE, `invalid: invalid offset: ${offset} is negative`);
  return offset;
}

/** What Go's strconv.Atoi accepts: an optional sign and decimal digits. */
function readGoInteger(text: string): number | undefined {
  return /^[+-]?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

function readLabelFilters(query: URLSearchParams, endpoint: string): ((resource: Resource) => boolean)[] {
  const filters: ((resource: Resource) => boolean)[] = [];
  for (const [key, value] of query) {
    if (!key.startsWith('filter[')) continue;
    const label = /^filter\[labels\.([^\]]+)\](.*)$/.exec(key);
    if (!label) throw invalidFilter(endpoint, key, 'filters are only supported on labels');
    if (label[2] !== '') throw invalidFilter(endpoint, key, 'advanced filters are not supported');
    const name = label[1]!;
    filters.push((resource) => Object.hasOwn(resource.meta.labels, name) && resource.meta.labels[name] === value);
  }
  return filters;
}

function invalidFilter(endpoint: string, key: string, reason: string): ApiError {
  return new ApiError(400, LIST_ERROR_TITLE, 'Resource is not valid', [{ field: `${endpoint}.${key}`, message: reason }]);
}

/**
 * `tag=k:v`: some inbound's (or the gateway's) tag `k` contains `v`, as Kuma's tag filter matches.
 * Only a tag's own key counts: `constructor` or `__proto__` is a tag name like any other.
 */
function readTagFilter(text: string): (resource: Resource) => boolean {
  const colon = text.indexOf(':');
  const key = colon === -1 ? text : text.slice(0, colon);
  const value = colon === -1 ? '' : text.slice(colon + 1);
  return (resource) => {
    const { networking } = resource.spec as DataplaneSpec;
    const tagSets = [...(networking.inbound ?? []).map((inbound) => inbound.tags), networking.gateway?.tags];
    return tagSets.some((tags) => tags !== undefined && Object.hasOwn(tags, key) && tags[key]!.includes(value));
  };
}

/** `gateway=true|false|builtin|delegated`; anything else keeps every Dataplane, as Kuma ignores it. */
function readGatewayFilter(text: string): (resource: Resource) => boolean {
  const gatewayType = (resource: Resource) => {
    const gateway = (resource.spec as DataplaneSpec).networking.gateway;
    return gateway === undefined ? undefined : gateway.type === 'BUILTIN' ? 'builtin' : 'delegated';
  };
  switch (text) {
    case 'true':
      return (resource) => gatewayType(resource) !== undefined;
    case 'false':
      return (resource) => gatewayType(resource) === undefined;
    case 'builtin':
    case 'delegated':
      return (resource) => gatewayType(resource) === text;
    default:
      return () => true;
  }
}
