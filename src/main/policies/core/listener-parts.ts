// The parts of a generated Envoy resource policy plugins change (Kuma's UpdateHTTPConnectionManager,
// UpdateTCPProxy, route walks), found in a draft (draft.ts), each with its path in the resource so
// that what a plugin sets can be attributed to the policy (EnvoyResources.put).
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { HTTP_CONNECTION_MANAGER_TYPE_URL, TCP_PROXY_TYPE_URL } from '../../xds/generate/extension-types.js';
import type { Draft } from './draft.js';

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
