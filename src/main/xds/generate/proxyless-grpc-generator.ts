import { SERVICE_TAG } from '../../../shared/resources.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { edsCluster } from './clusters.js';
import { memoizedForContext } from './context-memo.js';
import { serviceEndpoints } from './endpoints.js';
import { httpConnectionManager } from './filters.js';
import type { ResourceGenerator } from './generator.js';
import { ResourceSet } from './resources.js';
import { routeToCluster } from './routes.js';
import { grpcServerListeners } from './grpc-server-listeners.js';
import { upstreamTlsTransportSocket } from './tls-contexts.js';

/**
 * What gRPC's own xDS client needs for each outbound service, all four named after the service
 * (the client dials `xds:///<service>` and asks for the Listener of that name): an API listener
 * whose HttpConnectionManager fetches its routes over ADS, the RouteConfiguration, an EDS
 * cluster and its endpoints. gRPC accepts only this shape (gRFC A27): RDS and EDS over ADS,
 * router filter last, cluster type EDS with ROUND_ROBIN, a weighted locality with IP addresses.
 */
export const proxylessGrpcGenerator: ResourceGenerator = {
  name: 'proxyless-grpc',
  generate(context, proxy) {
    const resources = new ResourceSet();
    for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
      const service = outbound.tags?.[SERVICE_TAG];
      // An outbound to a `backendRef` (MeshService…) is stored and validated; only tagged ones are generated.
      if (service === undefined) continue;
      // The same for every client of the service: built once per context, shared by all of them.
      const shared = memoizedForContext(context, `grpc\n${service}`, () => ({
        cluster: { ...edsCluster(service), ...grpcClientTls(context, service) },
        endpoints: serviceEndpoints(context, service, 'grpc'),
        listener: { name: service, api_listener: { api_listener: httpConnectionManager(service, { rdsRouteName: service }) } },
        route: routeToCluster(service, service, service),
      }));
      resources
        .add(CLUSTER_TYPE_URL, service, shared.cluster)
        .add(ENDPOINT_TYPE_URL, service, shared.endpoints)
        .add(LISTENER_TYPE_URL, service, shared.listener)
        .add(ROUTE_TYPE_URL, service, shared.route);
    }
    for (const { name, listener } of grpcServerListeners(context, proxy)) resources.add(LISTENER_TYPE_URL, name, listener);
    return resources.toResources();
  },
};

/**
 * A gRPC client's mTLS to a mesh service, from its bootstrap's certificate providers; STRICT only.
 * A proxyless gRPC server cannot accept plaintext and TLS on one port (gRFC A36 matches filter
 * chains on `raw_buffer` only: no TLS inspector), so in PERMISSIVE it serves plaintext, and gRPC
 * clients dial plaintext, which an Envoy sidecar's PERMISSIVE inbound takes too.
 */
export function grpcClientTls(context: MeshContext, service: string): ProtoJson {
  const mtls = meshMtls(context.mesh);
  return mtls?.mode === 'STRICT' ? { transport_socket: upstreamTlsTransportSocket(mtls.mesh, service, 'certificate-provider') } : {};
}
