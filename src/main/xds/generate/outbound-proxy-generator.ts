import { SERVICE_TAG, type Protocol } from '../../../shared/resources.js';
import type { Endpoint } from '../context/mesh-context.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { CONNECT_TIMEOUT, edsCluster, upstreamProtocolOptions } from './clusters.js';
import { clusterLoadAssignment } from './endpoints.js';
import type { ResourceGenerator } from './generator.js';
import { proxyListener } from './listeners.js';
import { outboundListenerName, outboundRouteName } from './names.js';
import { ResourceSet } from './resources.js';

const DEFAULT_OUTBOUND_ADDRESS = '127.0.0.1';

/**
 * Envoy's side of each outbound: listener `outbound:<address>:<port>` forwarding to the EDS
 * cluster named after the service, whose endpoints are every inbound of that service in the mesh.
 */
export const outboundProxyGenerator: ResourceGenerator = {
  name: 'outbound-proxy',
  generate(context, proxy) {
    const resources = new ResourceSet();
    for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
      const address = outbound.address ?? DEFAULT_OUTBOUND_ADDRESS;
      const service = outbound.tags[SERVICE_TAG]!; // validation requires it
      const endpoints = context.endpointsByService.get(service) ?? [];
      const protocol = serviceProtocol(endpoints);
      const listener = outboundListenerName(address, outbound.port);
      resources
        .add(CLUSTER_TYPE_URL, service, {
          ...edsCluster(service),
          connect_timeout: CONNECT_TIMEOUT,
          ...upstreamProtocolOptions(protocol),
        })
        .add(ENDPOINT_TYPE_URL, service, clusterLoadAssignment(service, endpoints, context.mesh.meta.name))
        .add(
          LISTENER_TYPE_URL,
          listener,
          proxyListener({
            name: listener,
            address,
            port: outbound.port,
            direction: 'OUTBOUND',
            protocol,
            cluster: service,
            routeName: outboundRouteName(service),
            virtualHostName: service,
          }),
        );
    }
    return resources.toResources();
  },
};

/**
 * A service speaks the protocol its endpoints declare. When they disagree, or there are none yet,
 * only tcp is safe for all of them (Kuma does the same).
 */
function serviceProtocol(endpoints: readonly Endpoint[]): Protocol {
  const protocols = new Set(endpoints.map((endpoint) => endpoint.protocol));
  return protocols.size === 1 ? [...protocols][0]! : 'tcp';
}
