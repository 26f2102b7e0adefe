// What Kuma's two route plugins (meshroute's ApplyToOutbounds) share: the walk over a sidecar's
// outbounds, one routed listener per outbound a rule applies to, made once and shared, the clusters
// its routes send to, and the clusters no route uses any more removed.
import { SERVICE_TAG } from '../../../shared/resources.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { canonical } from '../../xds/context/carried-memo.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { derived } from './derived.js';
import { outboundServices } from './outbound-services.js';
import type { PluginInput } from './plugin.js';
import { RouteClusters, Rerouting } from './route-clusters.js';
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
 * object, rule, service and context (see `derived`): every proxy with this outbound and rule gets
 * the very same object, and so does every later plugin's edit of it.
 */
export function applyOutboundRoutes<Conf>({ proxy, context, rules, resources }: PluginInput<Conf>, { skip, route }: OutboundRouting<Conf>): void {
  const clusters = new RouteClusters(context, 'envoy');
  const rerouting = new Rerouting();
  for (const { service, listener: name } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (rule === undefined || listener === undefined || skip?.(name)) continue;
    // Per context too: routing reads the context (the protocols of the services it sends to).
    const byContext = derived(listener, rule, () => new WeakMap<MeshContext, Map<string, RoutedListener | undefined>>());
    let byService = byContext.get(context);
    if (byService === undefined) byContext.set(context, (byService = new Map()));
    if (!byService.has(service)) byService.set(service, canonicalRouted(context, route(listener, service, rule, new RouteClusters(context, 'envoy'))));
    const routed = byService.get(service);
    if (routed === undefined) continue;
    rerouting.put(resources, LISTENER_TYPE_URL, name, routed.listener, routed.set, service);
    clusters.addFrom(routed.clusters);
  }
  clusters.putInto(resources);
  rerouting.removeUnusedClusters(resources);
}

/** The routed listener as the mesh's previous context made it, when equal: later plugins' edits of it are then found again. */
function canonicalRouted(context: MeshContext, routed: RoutedListener | undefined): RoutedListener | undefined {
  return routed && { ...routed, listener: canonical(context, LISTENER_TYPE_URL, routed.listener) };
}
