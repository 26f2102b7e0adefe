import { SERVICE_TAG, type MeshResource, type Outbound, type Protocol, type Tags } from '../../../shared/resources.js';
import { canonical, canonicalMesh, carriedMemo } from '../context/carried-memo.js';
import { serviceProtocol, type MeshContext } from '../context/mesh-context.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { edsCluster, upstreamHttpProtocolOptions } from './clusters.js';
import { meshCircuitBreakerDefaultFields } from './defaults/mesh-circuit-breaker-defaults.js';
import {
  MESH_TIMEOUT_DEFAULTS,
  meshTimeoutClusterFields,
  meshTimeoutHttpConnectionManagerFields,
  meshTimeoutRouteActionFields,
  meshTimeoutTcpProxyFields,
} from './defaults/mesh-timeout-defaults.js';
import { memoizedForContext } from './context-memo.js';
import { serviceEndpoints } from './endpoints.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { ResourceGenerator } from './generator.js';
import { proxyListener } from './listeners.js';
import { CATCH_ALL_ROUTE_MATCHES, outboundListenerName, outboundRouteName, routeMatchesName } from './names.js';
import { meshServiceOutboundResourcesOf } from './meshservice/generate.js';
import { mergeResources, ResourceSet, type GeneratedResources } from './resources.js';
import { upstreamTlsTransportSocket } from './tls-contexts.js';

export const DEFAULT_OUTBOUND_ADDRESS = '127.0.0.1';
/** Kuma's tag naming the mesh of a cross-mesh outbound. */
const MESH_TAG = 'kuma.io/mesh';

/**
 * Envoy's side of each outbound: listener `outbound:<address>:<port>` forwarding to the EDS
 * cluster named after the service, whose endpoints are every inbound of that service in the mesh.
 */
export const outboundProxyGenerator: ResourceGenerator = {
  name: 'outbound-proxy',
  generate(context, proxy) {
    // Clients with the same outbounds (Kuma's default reachability gives each client every service)
    // get the very same lists: made once per context and outbounds, by content.
    const outbounds = canonical(context, 'outbounds', proxy.dataplane.spec.networking.outbound ?? NO_OUTBOUNDS);
    const byOutbounds = memoizedForContext(context, 'outbound-lists', () => new WeakMap<readonly Outbound[], GeneratedResources>());
    let generated = byOutbounds.get(outbounds);
    if (generated === undefined) byOutbounds.set(outbounds, (generated = outboundLists(context, outbounds)));
    const meshServices = meshServiceOutboundResourcesOf(context, proxy);
    return meshServices === undefined ? generated : mergedOnce(generated, meshServices);
  },
};

const NO_OUTBOUNDS: readonly Outbound[] = Object.freeze([]);

const merges = new WeakMap<GeneratedResources, WeakMap<GeneratedResources, GeneratedResources>>();

/** The two shared lists merged, the same object for every proxy with both: later steps find it by identity. */
function mergedOnce(tagged: GeneratedResources, meshServices: GeneratedResources): GeneratedResources {
  let byMeshServices = merges.get(tagged);
  if (byMeshServices === undefined) merges.set(tagged, (byMeshServices = new WeakMap()));
  let merged = byMeshServices.get(meshServices);
  if (merged === undefined) byMeshServices.set(meshServices, (merged = mergeResources(tagged, meshServices)));
  return merged;
}

/** The clusters, endpoints and listeners of a list of outbounds. */
function outboundLists(context: MeshContext, outbounds: readonly Outbound[]): GeneratedResources {
  const resources = new ResourceSet();
  for (const outbound of outbounds) {
    const address = outbound.address ?? DEFAULT_OUTBOUND_ADDRESS;
    const service = outbound.tags?.[SERVICE_TAG];
    // An outbound to a `backendRef` is the MeshService step's (meshservice/generate.ts).
    if (outbound.tags === undefined || service === undefined) continue;
    const listener = outboundListenerName(address, outbound.port);
    // The same for every proxy with this outbound: built once per context, shared by all of them.
    const tags = outboundListenerTags(outbound.tags);
    const shared = memoizedForContext(context, `outbound\n${listener}\n${JSON.stringify(tags)}`, () =>
      outboundResources(context, service, address, outbound.port, tags),
    );
    resources
      .add(CLUSTER_TYPE_URL, service, shared.cluster)
      .add(ENDPOINT_TYPE_URL, service, shared.endpoints)
      .add(LISTENER_TYPE_URL, listener, shared.listener);
  }
  return resources.toResources();
}

/**
 * One outbound's cluster, endpoints and listener: they depend only on the context, the service and
 * the listener's socket. The listener (its service's protocol aside) and the cluster (its mesh's
 * mTLS aside) read nothing of the context: after a change, the mesh's last tick's objects are found
 * again by what they are made of, not built and compared anew.
 */
function outboundResources(context: MeshContext, service: string, address: string, port: number, tags: Tags) {
  const protocol = serviceProtocol(context, service);
  const name = outboundListenerName(address, port);
  const listeners = carriedMemo<string, ProtoJson>(context, 'outbound-listeners', () => new Map());
  const listenerKey = `${name}\n${service}\n${protocol}\n${JSON.stringify(tags)}`;
  let listener = listeners.get(listenerKey);
  if (listener === undefined) listeners.set(listenerKey, (listener = outboundListener(name, address, port, protocol, tags, service)));
  return { cluster: carriedCluster(context, service, protocol), endpoints: serviceEndpoints(context, service, 'envoy'), listener };
}

/** A service's cluster, the mesh's last tick's object while the service's protocol and the mesh (its mTLS) are the same. */
function carriedCluster(context: MeshContext, service: string, protocol: Protocol): ProtoJson {
  const clusters = carriedMemo<string, { mesh: MeshResource; cluster: ProtoJson }>(context, 'outbound-clusters', () => new Map());
  const mesh = canonicalMesh(context);
  const key = `${service}\n${protocol}`;
  let carried = clusters.get(key);
  if (carried?.mesh !== mesh) clusters.set(key, (carried = { mesh, cluster: { ...outboundCluster(service, protocol), ...meshClusterTls(mesh, service) } }));
  return carried.cluster;
}

function outboundListener(name: string, address: string, port: number, protocol: Protocol, tags: Tags, service: string): ProtoJson {
  return proxyListener({
    name,
    address,
    port,
    direction: 'OUTBOUND',
    protocol,
    tags,
    cluster: service,
    routeName: outboundRouteName(service),
    virtualHostName: service,
    catchAllRouteName: routeMatchesName(CATCH_ALL_ROUTE_MATCHES),
    tcpProxyFields: meshTimeoutTcpProxyFields(MESH_TIMEOUT_DEFAULTS),
    // As MeshHTTPRoute's listeners: paths are normalized (RFC 3986) before routes match them.
    httpConnectionManagerFields: { normalize_path: true, ...meshTimeoutHttpConnectionManagerFields(MESH_TIMEOUT_DEFAULTS) },
    routeActionFields: meshTimeoutRouteActionFields(MESH_TIMEOUT_DEFAULTS),
  });
}

/** An outbound listener's tags (Kuma's OutboundListenerTags for kuma.io/service outbounds): the outbound's, less the mesh. */
function outboundListenerTags(tags: Tags): Tags {
  const { [MESH_TAG]: _mesh, ...rest } = tags;
  return rest;
}

/**
 * The EDS cluster of a service (or of a subset of it a route splits to), with the policy defaults a running kuma-cp gives it. Its endpoints
 * are other sidecars' inbound listeners, so, as in Kuma (meshroute's GenerateClusters), it always
 * speaks HTTP/2 to them, whatever the service's protocol: their HttpConnectionManager detects it.
 */
export function outboundCluster(service: string, protocol: Protocol): ProtoJson {
  const { common_http_protocol_options: common, ...timeouts } = meshTimeoutClusterFields(MESH_TIMEOUT_DEFAULTS, protocol);
  return {
    ...edsCluster(service),
    ...timeouts,
    ...meshCircuitBreakerDefaultFields(),
    ...upstreamHttpProtocolOptions('http2', common),
  };
}

/**
 * A mesh cluster's mTLS to its service when the mesh has mTLS on (Kuma's ClientSideMTLSConfigurer);
 * nothing when off. Every cluster to a mesh service takes it; a route's subset cluster names its
 * subset's tags in the SNI (`db{mesh=m,role=replica}`).
 */
export function meshClusterTls(mesh: MeshResource, service: string, subsetTags: Tags = {}): ProtoJson {
  const mtls = meshMtls(mesh);
  return mtls ? { transport_socket: upstreamTlsTransportSocket(mtls.mesh, service, 'sds', subsetTags) } : {};
}

