import { SERVICE_TAG } from '../../../shared/resources.js';
import { CATCH_ALL_ROUTE_MATCHES, routeMatchesName } from '../../xds/generate/names.js';
import { ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput } from '../core/plugin.js';
import { outboundServices } from '../core/outbound-services.js';
import { RouteClusters, Rerouting, type Split } from '../core/route-clusters.js';
import { ruleFor } from '../core/rules.js';
import { routeActionFields, withRoutes } from '../meshhttproute/destination-routes.js';
import { clusterSpecifier } from '../meshhttproute/envoy-routes.js';
import type { MeshTCPRouteConf } from './api.js';
import { routedByMeshHTTPRoute } from './http-route-wins.js';

/**
 * MeshTCPRoute for proxyless gRPC, which has no connections to forward, only calls: every call to
 * the destination goes to the rule's backendRefs by weight, through one catch-all route with
 * weighted clusters (gRFC A28), unless a MeshHTTPRoute took the destination. Envoy splits
 * connections, gRPC splits calls; the shares are the same.
 */
export function applyMeshTCPRouteToGrpc({ proxy, context, rules, resources }: PluginInput<MeshTCPRouteConf>): void {
  const clusters = new RouteClusters(context, 'grpc');
  const rerouting = new Rerouting();
  for (const { service } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const routeConfig = resources.get(ROUTE_TYPE_URL, service);
    if (rule === undefined || routeConfig === undefined || routedByMeshHTTPRoute(resources, ROUTE_TYPE_URL, service)) continue;
    const splits = (rule.conf.default?.backendRefs ?? []).map((ref) => clusters.split(ref, 'tcp', rule.origins)).filter((split): split is Split => split !== undefined);
    if (splits.length === 0) continue;
    const route = {
      match: { prefix: '/' },
      name: routeMatchesName(CATCH_ALL_ROUTE_MATCHES),
      route: { ...clusterSpecifier(splits), ...routeActionFields(routeConfig) },
    };
    rerouting.put(resources, ROUTE_TYPE_URL, service, withRoutes(routeConfig, [{ route, origins: rule.origins }]), [{ path: 'virtual_hosts[0].routes[0].route', origins: rule.origins }], service);
  }
  clusters.putInto(resources);
  rerouting.removeUnusedClusters(resources);
}
