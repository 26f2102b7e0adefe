import { MESH_TIMEOUT_DEFAULTS, meshTimeoutTcpProxyFields } from '../../xds/generate/defaults/mesh-timeout-defaults.js';
import { HTTP_CONNECTION_MANAGER_FILTER } from '../../xds/generate/extension-types.js';
import { tcpProxyFilter } from '../../xds/generate/filters.js';
import { sanitizeMetric } from '../../xds/generate/names.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput } from '../core/plugin.js';
import { applyOutboundRoutes, type RoutedListener } from '../core/outbound-routes.js';
import type { RouteClusters, Split } from '../core/route-clusters.js';
import type { Rule } from '../core/rules.js';
import type { MeshTCPRouteConf } from './api.js';
import { routedByMeshHTTPRoute } from './http-route-wins.js';

/**
 * Kuma's MeshTCPRoute plugin for a sidecar's outbounds: an outbound a rule applies to forwards its
 * connections byte for byte (tcp_proxy) to the rule's backendRefs, by weight, whatever protocol it
 * spoke before, unless a MeshHTTPRoute took it. An outbound without a rule keeps the generator's
 * listener, which is what Kuma gives it (tcp_proxy to the service, or MeshHTTPRoute's routes).
 */
export function applyMeshTCPRouteToEnvoy(input: PluginInput<MeshTCPRouteConf>): void {
  applyOutboundRoutes(input, { skip: (name) => routedByMeshHTTPRoute(input.resources, LISTENER_TYPE_URL, name), route: routedListener });
}

/** The outbound listener to `service` forwarding to the rule's backendRefs; undefined when no backendRef leads anywhere. */
function routedListener(listener: ProtoJson, service: string, rule: Rule<MeshTCPRouteConf>, clusters: RouteClusters): RoutedListener | undefined {
  const splits = (rule.conf.default?.backendRefs ?? []).map((ref) => clusters.split(ref, 'tcp', rule.origins)).filter((split): split is Split => split !== undefined);
  if (splits.length === 0) return undefined;
  const destination = splits.length === 1 ? splits[0]!.cluster : splits.map(({ cluster, weight }) => ({ name: cluster, weight }));
  const filter = tcpProxyFilter(sanitizeMetric(service), destination, meshTimeoutTcpProxyFields(MESH_TIMEOUT_DEFAULTS));
  const wasHttp = ((listener['filter_chains'] as ProtoJson[])[0]?.['filters'] as ProtoJson[]).some((each) => each['name'] === HTTP_CONNECTION_MANAGER_FILTER);
  return {
    listener: { ...listener, filter_chains: [{ filters: [filter] }] },
    // An HTTP outbound becomes a TCP one: the whole chain is the rule's, else only where it sends.
    set: [{ path: wasHttp ? 'filter_chains[0]' : 'filter_chains[0].filters[0].typed_config', origins: rule.origins }],
    clusters,
  };
}
