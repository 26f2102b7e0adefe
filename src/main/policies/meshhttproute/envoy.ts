import { SERVICE_TAG } from '../../../shared/resources.js';
import { HTTP_CONNECTION_MANAGER_FILTER } from '../../xds/generate/extension-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput } from '../core/plugin.js';
import { outboundServices } from '../core/outbound-services.js';
import { RouteClusters, removeUnusedClusters } from '../core/route-clusters.js';
import { ruleFor, type Rule } from '../core/rules.js';
import { derived } from '../core/derived.js';
import type { FieldsSet } from '../core/shared-edits.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import type { MeshHTTPRouteConf } from './api.js';
import { destinationRoutes, routeActionFields, withRoutes } from './destination-routes.js';

/**
 * Kuma's MeshHTTPRoute plugin for a sidecar's outbounds: the routes of every HTTP outbound a rule
 * applies to replace the listener's single route, and the clusters they send to are added. An
 * outbound no rule applies to keeps the generator's route, which is what Kuma gives it (the
 * catch-all to the service); a tcp outbound is left to MeshTCPRoute.
 */
export function applyMeshHTTPRouteToEnvoy({ proxy, context, rules, resources }: PluginInput<MeshHTTPRouteConf>): void {
  const clusters = new RouteClusters(context, 'envoy');
  const rerouted: string[] = [];
  for (const { service, listener: name } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (rule === undefined || listener === undefined) continue;
    const routed = routedListener(context, listener, service, rule);
    if (routed === undefined) continue;
    resources.put(LISTENER_TYPE_URL, name, routed.listener, routed.set);
    clusters.addFrom(routed.clusters);
    rerouted.push(service);
  }
  clusters.putInto(resources);
  removeUnusedClusters(resources, rerouted);
}

interface RoutedListener {
  listener: ProtoJson;
  set: FieldsSet;
  /** The clusters its routes send to. */
  clusters: RouteClusters;
}

/**
 * The outbound listener to `service` with the rule's routes, made once per listener object, rule
 * and service (see `derived`): every proxy with this outbound and rule gets the very same object,
 * and so does every later plugin's edit of it. Undefined for a listener without an HttpConnectionManager.
 */
function routedListener(context: MeshContext, listener: ProtoJson, service: string, rule: Rule<MeshHTTPRouteConf>): RoutedListener | undefined {
  const byService = derived(listener, rule, () => new Map<string, RoutedListener | undefined>());
  if (byService.has(service)) return byService.get(service);
  const chain = (listener['filter_chains'] as ProtoJson[] | undefined)?.[0];
  const filters = (chain?.['filters'] as ProtoJson[] | undefined) ?? [];
  const hcmIndex = filters.findIndex((filter) => filter['name'] === HTTP_CONNECTION_MANAGER_FILTER);
  let routed: RoutedListener | undefined;
  if (hcmIndex >= 0) {
    const clusters = new RouteClusters(context, 'envoy');
    const hcm = filters[hcmIndex]!['typed_config'] as ProtoJson;
    const routeConfig = hcm['route_config'] as ProtoJson;
    const routes = destinationRoutes(service, rule, clusters, routeActionFields(routeConfig));
    const newFilters = filters.map((filter, index) => (index === hcmIndex ? { ...filter, typed_config: { ...hcm, route_config: withRoutes(routeConfig, routes) } } : filter));
    const routesPath = `filter_chains[0].filters[${hcmIndex}].typed_config.route_config.virtual_hosts[0].routes`;
    routed = {
      listener: { ...listener, filter_chains: [{ ...chain, filters: newFilters }, ...(listener['filter_chains'] as ProtoJson[]).slice(1)] },
      // The route list as a whole is the rule's (MeshTCPRoute reads this: an HTTP route wins over a TCP route).
      set: [{ path: routesPath, origins: rule.origins }, ...routes.map(({ origins }, index) => ({ path: `${routesPath}[${index}]`, origins }))],
      clusters,
    };
  }
  byService.set(service, routed);
  return routed;
}
