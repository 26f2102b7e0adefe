import { HTTP_CONNECTION_MANAGER_FILTER } from '../../xds/generate/extension-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { PluginInput } from '../core/plugin.js';
import { applyOutboundRoutes, type RoutedListener } from '../core/outbound-routes.js';
import type { RouteClusters } from '../core/route-clusters.js';
import type { Rule } from '../core/rules.js';
import type { MeshHTTPRouteConf } from './api.js';
import { destinationRoutes, routeActionFields, withRoutes } from './destination-routes.js';

/**
 * Kuma's MeshHTTPRoute plugin for a sidecar's outbounds: the routes of every HTTP outbound a rule
 * applies to replace the listener's single route, and the clusters they send to are added. An
 * outbound no rule applies to keeps the generator's route, which is what Kuma gives it (the
 * catch-all to the service); a tcp outbound is left to MeshTCPRoute.
 */
export function applyMeshHTTPRouteToEnvoy(input: PluginInput<MeshHTTPRouteConf>): void {
  applyOutboundRoutes(input, { route: routedListener });
}

/** The outbound listener to `service` with the rule's routes; undefined for one without an HttpConnectionManager. */
function routedListener(listener: ProtoJson, service: string, rule: Rule<MeshHTTPRouteConf>, clusters: RouteClusters): RoutedListener | undefined {
  const chain = (listener['filter_chains'] as ProtoJson[] | undefined)?.[0];
  const filters = (chain?.['filters'] as ProtoJson[] | undefined) ?? [];
  const hcmIndex = filters.findIndex((filter) => filter['name'] === HTTP_CONNECTION_MANAGER_FILTER);
  if (hcmIndex < 0) return undefined;
  const hcm = filters[hcmIndex]!['typed_config'] as ProtoJson;
  const routeConfig = hcm['route_config'] as ProtoJson;
  const routes = destinationRoutes(service, rule, clusters, routeActionFields(routeConfig));
  const newFilters = filters.map((filter, index) => (index === hcmIndex ? { ...filter, typed_config: { ...hcm, route_config: withRoutes(routeConfig, routes) } } : filter));
  const routesPath = `filter_chains[0].filters[${hcmIndex}].typed_config.route_config.virtual_hosts[0].routes`;
  return {
    listener: { ...listener, filter_chains: [{ ...chain, filters: newFilters }, ...(listener['filter_chains'] as ProtoJson[]).slice(1)] },
    // The route list as a whole is the rule's (MeshTCPRoute reads this: an HTTP route wins over a TCP route).
    set: [{ path: routesPath, origins: rule.origins }, ...routes.map(({ origins }, index) => ({ path: `${routesPath}[${index}]`, origins }))],
    clusters,
  };
}
