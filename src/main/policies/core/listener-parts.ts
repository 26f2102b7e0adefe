// The parts of a generated Envoy resource policy plugins change (Kuma's UpdateHTTPConnectionManager,
// UpdateTCPProxy, route walks), found in a writable copy, each with its path in the resource so
// that what a plugin sets can be attributed to the policy (EnvoyResources.put).
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { HTTP_CONNECTION_MANAGER_TYPE_URL, TCP_PROXY_TYPE_URL } from '../../xds/generate/extension-types.js';

/** A writable copy of a resource: the generated ones are shared and frozen. */
export type Draft = Record<string, unknown>;

export function draftOf(resource: ProtoJson): Draft {
  return copyJson(resource) as Draft;
}

/**
 * The edited draft with every part equal to the resource's taken from the resource itself: what an
 * edit left alone stays the very object the resource (and every other proxy's copy of it) has, so
 * the encoder's cache finds its bytes by identity and only the parts the edit changed are encoded.
 * Neither argument is changed: the draft may hold parts of shared objects (a rule's conf).
 */
export function sharingUnchanged(draft: Draft, resource: ProtoJson): ProtoJson {
  return shareEqualParts(draft, resource) as ProtoJson;
}

function shareEqualParts(value: unknown, original: unknown): unknown {
  if (value === original || value === null || original === null || typeof value !== 'object' || typeof original !== 'object') return value;
  if (Array.isArray(value)) {
    if (!Array.isArray(original)) return value;
    const shared = value.map((item, index) => (index < original.length ? shareEqualParts(item, original[index]) : item));
    if (shared.length === original.length && shared.every((item, index) => item === original[index])) return original;
    return shared.every((item, index) => item === value[index]) ? value : shared;
  }
  if (Array.isArray(original) || ArrayBuffer.isView(value) || ArrayBuffer.isView(original)) return value;
  const keys = Object.keys(value);
  const originalKeys = Object.keys(original);
  const shared: Record<string, unknown> = {};
  let sameAsOriginal = keys.length === originalKeys.length;
  let sameAsValue = true;
  keys.forEach((key, index) => {
    const part = (value as Record<string, unknown>)[key];
    const sharedPart = Object.hasOwn(original, key) ? shareEqualParts(part, (original as Record<string, unknown>)[key]) : part;
    shared[key] = sharedPart;
    // Same keys in the same order: the JSON the history and the UI show stays exactly the draft's.
    if (sharedPart !== (original as Record<string, unknown>)[key] || originalKeys[index] !== key) sameAsOriginal = false;
    if (sharedPart !== part) sameAsValue = false;
  });
  return sameAsOriginal ? original : sameAsValue ? value : shared;
}

/** A deep copy of JSON-shaped data: several times faster than structuredClone, which a proxy's edits run often. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) return structuredClone(value);
  // Not JSON: a marker an edit placed (proxy-bound.ts), which must stay itself.
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyJson((value as Record<string, unknown>)[key]);
  return copy;
}

/** A part of a draft and where it is: `filter_chains[0].filters[0].typed_config`. */
export interface DraftPart {
  path: string;
  value: Draft;
}

function records(value: unknown): Draft[] {
  return Array.isArray(value) ? (value as Draft[]) : [];
}

/** The typed configs of one kind of network filter, in every filter chain of a listener draft. */
function networkFilterConfigs(listener: Draft, typeUrl: string): DraftPart[] {
  return records(listener.filter_chains).flatMap((chain, chainIndex) =>
    records(chain.filters).flatMap((filter, filterIndex) => {
      const config = filter.typed_config as Draft | undefined;
      return config?.['@type'] === typeUrl ? [{ path: `filter_chains[${chainIndex}].filters[${filterIndex}].typed_config`, value: config }] : [];
    }),
  );
}

export function httpConnectionManagers(listener: Draft): DraftPart[] {
  return networkFilterConfigs(listener, HTTP_CONNECTION_MANAGER_TYPE_URL);
}

export function tcpProxies(listener: Draft): DraftPart[] {
  return networkFilterConfigs(listener, TCP_PROXY_TYPE_URL);
}

/** Every route of a RouteConfiguration draft at `path` ('' for a RouteConfiguration resource itself). */
export function routesOf(routeConfig: Draft | undefined, path: string): DraftPart[] {
  if (routeConfig === undefined) return [];
  const prefix = path === '' ? '' : `${path}.`;
  return records(routeConfig.virtual_hosts).flatMap((host, hostIndex) =>
    records(host.routes).map((route, routeIndex) => ({ path: `${prefix}virtual_hosts[${hostIndex}].routes[${routeIndex}]`, value: route })),
  );
}

/** The routes inlined in an HttpConnectionManager draft. */
export function inlineRoutes(hcm: DraftPart): DraftPart[] {
  return routesOf(hcm.value.route_config as Draft | undefined, `${hcm.path}.route_config`);
}

const routeNames = new WeakMap<ProtoJson, readonly (string | undefined)[]>();

/** Route names read once per (immutable) resource, without a copy. */
function memoizedRouteNames(resource: ProtoJson, routes: (draft: Draft) => DraftPart[]): readonly (string | undefined)[] {
  let names = routeNames.get(resource);
  if (names === undefined) routeNames.set(resource, (names = routes(resource as Draft).map((route) => route.value.name as string | undefined)));
  return names;
}

/** The names of a listener's inline routes, in the order inlineRoutes walks them. */
export function inlineRouteNames(listener: ProtoJson): readonly (string | undefined)[] {
  return memoizedRouteNames(listener, (draft) => httpConnectionManagers(draft).flatMap(inlineRoutes));
}

/** The names of a RouteConfiguration's routes, in the order routesOf walks them. */
export function routeConfigRouteNames(routeConfig: ProtoJson): readonly (string | undefined)[] {
  return memoizedRouteNames(routeConfig, (draft) => routesOf(draft, ''));
}

/** The object at `key` of a draft, created when missing. */
export function child(draft: Draft, key: string): Draft {
  const existing = draft[key];
  if (existing !== null && typeof existing === 'object' && !Array.isArray(existing)) return existing as Draft;
  const created: Draft = {};
  draft[key] = created;
  return created;
}
