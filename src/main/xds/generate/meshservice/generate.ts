// The one entry of the outbound step for MeshService outbounds: which ones the proxy gets, and
// their listeners, clusters and endpoints. Each outbound's objects are built once per context and
// shared by every proxy with the same outbound.
import type { MeshContext } from '../../context/mesh-context.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../../protocol/type-urls.js';
import { memoizedForContext } from '../context-memo.js';
import type { Proxy } from '../proxy.js';
import { ResourceSet, type GeneratedResources } from '../resources.js';
import { meshServiceOutboundsOf, type MeshServiceOutbound } from './outbounds.js';
import { meshServiceOutboundResources } from './resources.js';

/** The proxy's MeshService outbounds as Envoy resources; undefined when it has none (every mesh not using the model). */
export function meshServiceOutboundResourcesOf(context: MeshContext, proxy: Proxy): GeneratedResources | undefined {
  if (context.destinations.meshServices.length === 0) return undefined;
  const outbounds = meshServiceOutboundsOf(context, proxy.dataplane);
  if (outbounds.length === 0) return undefined;
  const keys = outbounds.map(outboundKey);
  // Proxies with the same outbounds (every transparent proxy of a mesh, mostly) share one list.
  return memoizedForContext(context, `meshservice-outbounds\n${keys.join('\n')}`, () => {
    const resources = new ResourceSet();
    outbounds.forEach((outbound, index) => {
      const built = memoizedForContext(context, `meshservice-outbound\n${keys[index]}`, () => meshServiceOutboundResources(context, outbound));
      resources
        .add(LISTENER_TYPE_URL, built.listenerName, built.listener)
        .add(CLUSTER_TYPE_URL, built.clusterName, built.cluster)
        .add(ENDPOINT_TYPE_URL, built.clusterName, built.endpoints);
    });
    return resources.toResources();
  });
}

/** Everything an outbound's objects depend on besides the context. */
function outboundKey(outbound: MeshServiceOutbound): string {
  return `${outbound.address}:${outbound.port} ${outbound.meshService.meta.name} ${outbound.section.name} ${outbound.bindToPort}`;
}
