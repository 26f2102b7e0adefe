import { SERVICE_TAG, type DataplaneResource, type Inbound, type MeshResource, type Protocol, type Tags } from '../../../shared/resources.js';
import { canonical, canonicalMesh, carriedMemo } from '../context/carried-memo.js';
import { protocolFromTags } from '../context/build-mesh-context.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { singleEndpointCluster, upstreamHttpProtocolOptions, upstreamHttpVersion } from './clusters.js';
import { INBOUND_GRPC_CLUSTER_IDLE_TIMEOUT, INBOUND_STREAM_IDLE_TIMEOUT } from './defaults/inbound-timeout-defaults.js';
import { meshCircuitBreakerDefaultFields } from './defaults/mesh-circuit-breaker-defaults.js';
import {
  MESH_TIMEOUT_DEFAULTS,
  meshTimeoutClusterFields,
  meshTimeoutHttpConnectionManagerFields,
  meshTimeoutRouteActionFields,
  meshTimeoutTcpProxyFields,
} from './defaults/mesh-timeout-defaults.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { ResourceGenerator } from './generator.js';
import { proxyListener } from './listeners.js';
import { FEATURE_REUSE_PORT } from './proxy.js';
import { inboundListenerName, inboundRouteName, localClusterName } from './names.js';
import { ResourceSet, type GeneratedResources } from './resources.js';
import { downstreamTlsTransportSocket } from './tls-contexts.js';

/** Kuma's tag naming a resource by its unified (contextual or KRI) name. */
const UNIFIED_NAME_TAG = 'kuma.io/unified-name';
/** The header a sidecar's outbound requests carry the proxy's tags in, for legacy `from` policies at the destination. */
export const KUMA_TAGS_HEADER = 'x-kuma-tags';

/**
 * Envoy's side of each inbound: listener `inbound:<address>:<port>` in front of the application,
 * reached through the static cluster `localhost:<servicePort>` at the workload's address.
 */
export const inboundProxyGenerator: ResourceGenerator = {
  name: 'inbound-proxy',
  generate(context, proxy) {
    // They change only with the proxy's Dataplane, its mesh and whether it can reuse ports: after a
    // change elsewhere, the mesh's last tick's lists are found again (by content: canonical).
    const dataplane = canonical(context, 'dataplane', proxy.dataplane);
    const mesh = canonicalMesh(context);
    const reusePort = proxy.features?.has(FEATURE_REUSE_PORT) ?? false;
    const byDataplane = carriedMemo(context, 'inbound-lists', () => new WeakMap<DataplaneResource, InboundLists>());
    const last = byDataplane.get(dataplane);
    if (last !== undefined && last.mesh === mesh && last.reusePort === reusePort) return last.generated;
    const generated = inboundLists(mesh, dataplane, reusePort);
    byDataplane.set(dataplane, { mesh, reusePort, generated });
    return generated;
  },
};

/** A Dataplane's inbound lists, with what else they were made from. */
interface InboundLists {
  mesh: MeshResource;
  reusePort: boolean;
  generated: GeneratedResources;
}

/** The listener and application cluster of each tagged inbound of a Dataplane. */
function inboundLists(mesh: MeshResource, dataplane: DataplaneResource, reusePort: boolean): GeneratedResources {
  const resources = new ResourceSet();
  const mtls = meshMtls(mesh);
  const inboundMtls = mtls && { mode: mtls.mode, transportSocket: downstreamTlsTransportSocket(mtls.mesh, 'sds') };
  // Inbounds sharing a service port share the cluster's name; as in Kuma, the last one's cluster wins.
  const localClusters = new Map<string, ProtoJson>();
  const { networking } = dataplane.spec;
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
    localClusters.set(cluster, localCluster(cluster, workloadAddress(inbound, networking.address), servicePort, protocol));
    resources.add(
      LISTENER_TYPE_URL,
      listener,
      proxyListener({
        name: listener,
        address,
        port: inbound.port,
        direction: 'INBOUND',
        // Kuma's InboundListenerConfigurer: on when the proxy advertises it (kuma-dp does by default).
        reusePort,
        protocol,
        tags: inboundListenerTags(inbound),
        cluster,
        routeName: inboundRouteName(service),
        virtualHostName: service,
        // Kuma's legacy policies matched on a header carrying the caller's tags; it never reaches the application.
        routeConfigFields: { request_headers_to_remove: [KUMA_TAGS_HEADER] },
        tcpProxyFields: meshTimeoutTcpProxyFields(MESH_TIMEOUT_DEFAULTS),
        httpConnectionManagerFields: {
          // The application learns the caller's identity from x-forwarded-client-cert (with mTLS).
          forward_client_cert_details: 'SANITIZE_SET',
          set_current_client_cert_details: { uri: true },
          ...meshTimeoutHttpConnectionManagerFields(MESH_TIMEOUT_DEFAULTS),
          stream_idle_timeout: INBOUND_STREAM_IDLE_TIMEOUT,
        },
        routeActionFields: meshTimeoutRouteActionFields(MESH_TIMEOUT_DEFAULTS),
        mtls: inboundMtls,
      }),
    );
  }
  for (const [name, cluster] of localClusters) resources.add(CLUSTER_TYPE_URL, name, cluster);
  return resources.toResources();
}

/** The static cluster of the application behind an inbound, with the policy defaults a running kuma-cp gives it. */
function localCluster(name: string, address: string, port: number, protocol: Protocol): ProtoJson {
  const { common_http_protocol_options: common, ...timeouts } = meshTimeoutClusterFields(MESH_TIMEOUT_DEFAULTS, protocol);
  const grpcCommon = protocol === 'grpc' ? { idle_timeout: INBOUND_GRPC_CLUSTER_IDLE_TIMEOUT } : undefined;
  return {
    ...singleEndpointCluster(name, address, port),
    ...timeouts,
    ...meshCircuitBreakerDefaultFields(),
    ...upstreamHttpProtocolOptions(upstreamHttpVersion(protocol), common ?? grpcCommon),
  };
}

/**
 * An inbound listener's tags (Kuma's InboundListenerTags): the inbound's, or without any its
 * contextual name (`self_inbound_dp_<section>`, the section being the port) so that it stays selectable.
 */
function inboundListenerTags(inbound: Inbound): Tags {
  const tags = inbound.tags ?? {};
  return Object.keys(tags).length > 0 ? tags : { [UNIFIED_NAME_TAG]: `self_inbound_dp_${inbound.port}` };
}

/**
 * Where the application behind an inbound listens (Kuma's WorkloadIP): its `serviceAddress`, else
 * the address Envoy listens on for it, so that an application bound to its real address is reached.
 */
export function workloadAddress(inbound: Inbound, dataplaneAddress: string): string {
  return inbound.serviceAddress ?? inbound.address ?? dataplaneAddress;
}
