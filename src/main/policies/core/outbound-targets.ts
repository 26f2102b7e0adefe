import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { EnvoyResources } from './envoy-resources.js';
import { outboundServices } from './outbound-services.js';

/** A split cluster of a service: `<service>-<16 hex>` (a MeshHTTPRoute/MeshTCPRoute backend with tags). */
function isSplitClusterOf(name: string, service: string): boolean {
  return name.length === service.length + 17 && name.startsWith(`${service}-`) && /^[0-9a-f]{16}$/.test(name.slice(service.length + 1));
}

/**
 * The clusters that carry each service's traffic (Kuma's GatherTargetedClusters): the one named
 * after the service and its split clusters, each once, from one pass over the clusters (names by
 * service): a pass per outbound would cost outbounds × clusters.
 */
export function serviceClusterNames(resources: EnvoyResources): ReadonlyMap<string, readonly string[]> {
  const byService = new Map<string, string[]>();
  const add = (service: string, name: string) => {
    const names = byService.get(service);
    if (names) names.push(name);
    else byService.set(service, [name]);
  };
  for (const name of resources.names(CLUSTER_TYPE_URL)) {
    add(name, name);
    const service = name.slice(0, -17);
    if (service !== '' && isSplitClusterOf(name, service)) add(service, name);
  }
  return byService;
}

/** Every service the proxy has an outbound to, once each, in the Dataplane's order. */
export function outboundServiceNames(proxy: Proxy): string[] {
  return [...new Set(outboundServices(proxy).map(({ service }) => service))];
}
