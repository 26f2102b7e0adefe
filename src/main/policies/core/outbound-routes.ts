// What Kuma's two route plugins (meshroute's ApplyToOutbounds) share: the walk over a sidecar's
// outbounds, one routed listener per outbound a rule applies to, made once and shared, the clusters
// its routes send to, and the clusters no route uses any more removed.
import { SERVICE_TAG } from '../../../shared/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { derived } from './derived.js';
import { outboundServices } from './outbound-services.js';
import type { PluginInput } from './plugin.js';
import { RouteClusters, removeUnusedClusters } from './route-clusters.js';
import { ruleFor, type Rule } from './rules.js';
import type { FieldsSet } from './shared-edits.js';

/** An outbound listener as a route rule makes it, the fields the rule set, and the clusters it sends to. */
export interface RoutedListener {
  listener: ProtoJson;
  set: FieldsSet;
  clusters: RouteClusters;
}

export interface OutboundRouting<Conf> {
  /** The listener `name` stays as it is (MeshTCPRoute: a MeshHTTPRoute took it). */
  skip?: (name: string) => boolean;
  /** The listener to `service` under the rule; undefined when the rule cannot route it. */
  route: (listener: ProtoJson, service: string, rule: Rule<Conf>, clusters: RouteClusters) => RoutedListener | undefined;
}

/**
 * Routes every outbound a `to` rule applies to. Each routed listener is made once per listener
 * object, rule and service (see `derived`): every proxy with this outbound and rule gets the very
 * same object, and so does every later plugin's edit of it.
 */
export function applyOutboundRoutes<Conf>({ proxy, context, rules, resources }: PluginInput<Conf>, { skip, route }: OutboundRouting<Conf>): void {
  const clusters = new RouteClusters(context, 'envoy');
  const rerouted: string[] = [];
  for (const { service, listener: name } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (rule === undefined || listener === undefined || skip?.(name)) continue;
    const byService = derived(listener, rule, () => new Map<string, RoutedListener | undefined>());
    if (!byService.has(service)) byService.set(service, route(listener, service, rule, new RouteClusters(context, 'envoy')));
    const routed = byService.get(service);
    if (routed === undefined) continue;
    resources.put(LISTENER_TYPE_URL, name, routed.listener, routed.set);
    clusters.addFrom(routed.clusters);
    rerouted.push(service);
  }
  clusters.putInto(resources);
  removeUnusedClusters(resources, rerouted);
}
