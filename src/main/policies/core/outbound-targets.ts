import { SERVICE_TAG } from '../../../shared/resources.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { EnvoyResources } from './envoy-resources.js';

/** One `kuma.io/service` outbound of a proxy: the service it reaches and the socket it listens on. */
export interface ServiceOutbound {
  service: string;
  address: string;
  port: number;
}

const DEFAULT_OUTBOUND_ADDRESS = '127.0.0.1';

/** The proxy's outbounds to `kuma.io/service` destinations, in the Dataplane's order (Kuma's legacy outbounds). */
export function serviceOutbounds(proxy: Proxy): ServiceOutbound[] {
  return (proxy.dataplane.spec.networking.outbound ?? []).flatMap((outbound) => {
    const service = outbound.tags?.[SERVICE_TAG];
    return service === undefined ? [] : [{ service, address: outbound.address ?? DEFAULT_OUTBOUND_ADDRESS, port: outbound.port }];
  });
}

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
  return [...new Set(serviceOutbounds(proxy).map(({ service }) => service))];
}
