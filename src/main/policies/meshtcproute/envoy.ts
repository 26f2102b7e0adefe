import { SERVICE_TAG } from '../../../shared/resources.js';
import { MESH_TIMEOUT_DEFAULTS, meshTimeoutTcpProxyFields } from '../../xds/generate/defaults/mesh-timeout-defaults.js';
import { HTTP_CONNECTION_MANAGER_FILTER } from '../../xds/generate/extension-types.js';
import { tcpProxyFilter } from '../../xds/generate/filters.js';
import { sanitizeMetric } from '../../xds/generate/names.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput } from '../core/plugin.js';
import { outboundServices } from '../core/outbound-services.js';
import { RouteClusters, removeUnusedClusters, type Split } from '../core/route-clusters.js';
import { ruleFor, type Rule } from '../core/rules.js';
import { derived } from '../core/derived.js';
import type { FieldsSet } from '../core/shared-edits.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import type { MeshTCPRouteConf } from './api.js';
import { routedByMeshHTTPRoute } from './http-route-wins.js';

/**
 * Kuma's MeshTCPRoute plugin for a sidecar's outbounds: an outbound a rule applies to forwards its
 * connections byte for byte (tcp_proxy) to the rule's backendRefs, by weight, whatever protocol it
 * spoke before, unless a MeshHTTPRoute took it. An outbound without a rule keeps the generator's
 * listener, which is what Kuma gives it (tcp_proxy to the service, or MeshHTTPRoute's routes).
 */
export function applyMeshTCPRouteToEnvoy({ proxy, context, rules, resources }: PluginInput<MeshTCPRouteConf>): void {
  const clusters = new RouteClusters(context, 'envoy');
  const rerouted: string[] = [];
  for (const { service, listener: name } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (rule === undefined || listener === undefined || routedByMeshHTTPRoute(resources, LISTENER_TYPE_URL, name)) continue;
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
  /** The clusters it sends to. */
  clusters: RouteClusters;
}

/**
 * The outbound listener to `service` forwarding to the rule's backendRefs, made once per listener
 * object, rule and service (see `derived`): every proxy with this outbound and rule gets the very
 * same object. Undefined when no backendRef leads anywhere.
 */
function routedListener(context: MeshContext, listener: ProtoJson, service: string, rule: Rule<MeshTCPRouteConf>): RoutedListener | undefined {
  const byService = derived(listener, rule, () => new Map<string, RoutedListener | undefined>());
  if (byService.has(service)) return byService.get(service);
  const clusters = new RouteClusters(context, 'envoy');
  const splits = (rule.conf.default?.backendRefs ?? []).map((ref) => clusters.split(ref, 'tcp', rule.origins)).filter((split): split is Split => split !== undefined);
  let routed: RoutedListener | undefined;
  if (splits.length > 0) {
    const destination = splits.length === 1 ? splits[0]!.cluster : splits.map(({ cluster, weight }) => ({ name: cluster, weight }));
    const filter = tcpProxyFilter(sanitizeMetric(service), destination, meshTimeoutTcpProxyFields(MESH_TIMEOUT_DEFAULTS));
    const wasHttp = ((listener['filter_chains'] as ProtoJson[])[0]?.['filters'] as ProtoJson[]).some((each) => each['name'] === HTTP_CONNECTION_MANAGER_FILTER);
    routed = {
      listener: { ...listener, filter_chains: [{ filters: [filter] }] },
      // An HTTP outbound becomes a TCP one: the whole chain is the rule's, else only where it sends.
      set: [{ path: wasHttp ? 'filter_chains[0]' : 'filter_chains[0].filters[0].typed_config', origins: rule.origins }],
      clusters,
    };
  }
  byService.set(service, routed);
  return routed;
}
