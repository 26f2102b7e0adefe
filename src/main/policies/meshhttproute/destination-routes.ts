// One destination's routes under its MeshHTTPRoute rule (Kuma's generateFromService), for Envoy
// and for gRPC alike: the route configuration keeps its shape, only its routes change.
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { RouteClusters, Split } from '../core/route-clusters.js';
import type { Rule } from '../core/rules.js';
import type { MeshHTTPRouteConf } from './api.js';
import { envoyRoutes } from './envoy-routes.js';
import { prepareRoutes, type PreparedRoute } from './prepare-routes.js';

export interface DestinationRoute {
  route: ProtoJson;
  origins: readonly PolicyOrigin[];
}

/**
 * The Envoy routes of `service` under `rule`, in order. A route none of whose backendRefs leads
 * anywhere (all of weight 0, of another protocol, or real resources) is left out, as in Kuma.
 * `adapt` lets a proxy that does less than Envoy change or leave out a route first.
 */
export function destinationRoutes(
  service: string,
  rule: Rule<MeshHTTPRouteConf>,
  clusters: RouteClusters,
  actionFields: ProtoJson,
  adapt: (route: PreparedRoute) => PreparedRoute | undefined = (route) => route,
): DestinationRoute[] {
  const prepared = prepareRoutes(rule.conf.rules ?? [], { kind: 'MeshService', name: service, weight: 100 }, rule.origins);
  return prepared.flatMap((original) => {
    const route = adapt(original);
    if (route === undefined) return [];
    const splits = route.backendRefs.map((ref) => clusters.split(ref, 'http', route.origins)).filter((split): split is Split => split !== undefined);
    if (splits.length === 0) return [];
    const mirrorCluster = new Map(
      route.filters.flatMap((filter) => {
        const ref = filter.type === 'RequestMirror' ? filter.requestMirror?.backendRef : undefined;
        const split = ref && clusters.split({ ...ref, weight: 1 }, 'http', route.origins);
        return split ? [[filter, split.cluster] as const] : [];
      }),
    );
    return envoyRoutes(route, splits, actionFields, (filter) => mirrorCluster.get(filter)).map((envoyRoute) => ({ route: envoyRoute, origins: route.origins }));
  });
}

/** The RouteConfiguration's first virtual host (the only one a sidecar's outbound has). */
export function firstVirtualHost(routeConfig: ProtoJson): { routes: ProtoJson[] } & ProtoJson {
  return (routeConfig['virtual_hosts'] as ({ routes: ProtoJson[] } & ProtoJson)[])[0]!;
}

/** The fields every route's action has besides where it sends (the timeouts a generator gave them). */
export function routeActionFields(routeConfig: ProtoJson): ProtoJson {
  const action = (firstVirtualHost(routeConfig).routes[0]?.['route'] ?? {}) as ProtoJson;
  const { cluster: _cluster, weighted_clusters: _weighted, ...fields } = action;
  return fields;
}

/** A copy of the RouteConfiguration whose first virtual host has `routes`. */
export function withRoutes(routeConfig: ProtoJson, routes: readonly DestinationRoute[]): ProtoJson {
  const [first, ...others] = routeConfig['virtual_hosts'] as ProtoJson[];
  return { ...routeConfig, virtual_hosts: [{ ...first, routes: routes.map(({ route }) => route) }, ...others] };
}
