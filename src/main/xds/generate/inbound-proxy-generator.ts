import { SERVICE_TAG } from '../../../shared/resources.js';
import { protocolFromTags } from '../context/build-mesh-context.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { singleEndpointCluster, upstreamProtocolOptions } from './clusters.js';
import type { ResourceGenerator } from './generator.js';
import { proxyListener } from './listeners.js';
import { inboundListenerName, inboundRouteName, localClusterName } from './names.js';
import { ResourceSet } from './resources.js';

/** Where the application behind an inbound listens when the inbound names no `serviceAddress`. */
const DEFAULT_SERVICE_ADDRESS = '127.0.0.1';

/**
 * Envoy's side of each inbound: listener `inbound:<address>:<port>` in front of the application,
 * reached through the static cluster `localhost:<servicePort>`.
 */
export const inboundProxyGenerator: ResourceGenerator = {
  name: 'inbound-proxy',
  generate(_context, proxy) {
    const resources = new ResourceSet();
    const { networking } = proxy.dataplane.spec;
    for (const inbound of networking.inbound ?? []) {
      const tags = inbound.tags ?? {};
      const service = tags[SERVICE_TAG];
      // A tags-less inbound (Kuma 2.14) is stored and validated; this generator serves tagged ones only.
      if (service === undefined) continue;
      const address = inbound.address ?? networking.address;
      const servicePort = inbound.servicePort ?? inbound.port;
      const protocol = protocolFromTags(tags);
      const cluster = localClusterName(servicePort);
      const listener = inboundListenerName(address, inbound.port);
      resources.add(CLUSTER_TYPE_URL, cluster, {
        ...singleEndpointCluster(cluster, inbound.serviceAddress ?? DEFAULT_SERVICE_ADDRESS, servicePort),
        ...upstreamProtocolOptions(protocol),
      });
      resources.add(
        LISTENER_TYPE_URL,
        listener,
        proxyListener({
          name: listener,
          address,
          port: inbound.port,
          direction: 'INBOUND',
          protocol,
          cluster,
          routeName: inboundRouteName(service),
          virtualHostName: service,
        }),
      );
    }
    return resources.toResources();
  },
};
