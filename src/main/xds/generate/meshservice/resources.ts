// The Envoy objects of one MeshService outbound, as Kuma 2.14's MeshHTTPRoute (http, http2, grpc)
// and MeshTCPRoute (anything else) plugins build them without any policy: a listener with the
// catch-all route, an EDS cluster speaking HTTP/2, and the endpoints of the port's healthy inbounds.
import type { MeshServicePort } from '../../../../shared/meshservice-types.js';
import { PROTOCOLS, type Protocol, type Resource } from '../../../../shared/resources.js';
import { spiffeId } from '../../../mtls/mesh-ca.js';
import { meshMtls } from '../../../mtls/mesh-mtls.js';
import { isHealthyInbound, inboundServesPort, selectedDataplanes } from '../../../meshservice/match.js';
import { inboundEndpoint } from '../../context/build-mesh-context.js';
import type { Endpoint, MeshContext } from '../../context/mesh-context.js';
import type { ProtoJson } from '../../protocol/proto-json.js';
import { edsCluster, upstreamHttpProtocolOptions } from '../clusters.js';
import { clusterLoadAssignment } from '../endpoints.js';
import { proxyListener } from '../listeners.js';
import { CATCH_ALL_ROUTE_MATCHES, outboundListenerName, routeMatchesName } from '../names.js';
import { upstreamResourceTlsTransportSocket } from '../tls-contexts.js';
import { legacyMeshServiceName, meshServiceSni, sectionKri } from './names.js';
import type { MeshServiceOutbound } from './outbounds.js';

/** The listener metadata key under `io.kuma.tags` naming the outbound's resource and section. */
const UNIFIED_NAME_TAG = 'kuma.io/unified-name';

export interface MeshServiceOutboundResources {
  listenerName: string;
  listener: ProtoJson;
  /** The legacy name: the cluster's and its assignment's. */
  clusterName: string;
  cluster: ProtoJson;
  endpoints: ProtoJson;
}

export function meshServiceOutboundResources(context: MeshContext, outbound: MeshServiceOutbound): MeshServiceOutboundResources {
  const { meshService, section } = outbound;
  const clusterName = legacyMeshServiceName(meshService, section.port);
  const listenerName = outboundListenerName(outbound.address, outbound.port);
  const listener = proxyListener({
    name: listenerName,
    address: outbound.address,
    port: outbound.port,
    direction: 'OUTBOUND',
    protocol: portProtocol(portOf(meshService, section.port)),
    tags: { [UNIFIED_NAME_TAG]: sectionKri(meshService, section) },
    cluster: clusterName,
    routeName: sectionKri(meshService, section),
    virtualHostName: clusterName,
    catchAllRouteName: routeMatchesName(CATCH_ALL_ROUTE_MATCHES),
    // As MeshHTTPRoute's listeners: paths are normalized (RFC 3986) before routes match them.
    httpConnectionManagerFields: { normalize_path: true },
    // Kuma's route says 0s (no timeout) until a MeshTimeout sets one.
    routeActionFields: { timeout: '0s' },
  });
  return {
    listenerName,
    listener: outbound.bindToPort ? listener : { ...listener, bind_to_port: false },
    clusterName,
    cluster: { ...edsCluster(clusterName), ...upstreamHttpProtocolOptions('http2'), ...clusterTls(context, meshService, section.port) },
    endpoints: clusterLoadAssignment(clusterName, portEndpoints(context, meshService, section.port), context.mesh.meta.name, 'envoy'),
  };
}

function portOf(meshService: Resource<'MeshService'>, port: number): MeshServicePort {
  return (meshService.spec.ports ?? []).find((each) => each.port === port)!;
}

/** http, http2 and grpc get an HttpConnectionManager; any other `appProtocol` (tcp, kafka…) a tcp_proxy. */
function portProtocol(port: MeshServicePort): Protocol {
  return PROTOCOLS.find((protocol) => protocol === port.appProtocol) ?? 'tcp';
}

/**
 * Mesh mTLS to the MeshService: its ServiceTag identities are the SANs it must present. A
 * PERMISSIVE mesh sends plaintext to a MeshService whose proxies do not all hold a certificate yet
 * (`status.tls` not Ready), as Kuma does.
 */
function clusterTls(context: MeshContext, meshService: Resource<'MeshService'>, port: number): ProtoJson {
  const mtls = meshMtls(context.mesh);
  if (mtls === undefined) return {};
  if (mtls.mode === 'PERMISSIVE' && meshService.status?.tls?.status !== 'Ready') return {};
  const mesh = meshService.meta.mesh;
  const identities = (meshService.spec.identities ?? []).filter((identity) => identity.type === 'ServiceTag');
  return {
    transport_socket: upstreamResourceTlsTransportSocket(
      mesh,
      identities.map((identity) => spiffeId(mesh, identity.value)),
      meshServiceSni(meshService.meta.name, mesh, port),
    ),
  };
}

/**
 * The port's endpoints: every healthy inbound serving it on the Dataplanes the MeshService selects,
 * at the Dataplane's advertised address and the inbound's port; the inbound's tags (the service
 * aside) and the Dataplane's labels as metadata, its zone as locality.
 */
function portEndpoints(context: MeshContext, meshService: Resource<'MeshService'>, port: number): Endpoint[] {
  const servedPort = portOf(meshService, port);
  const endpoints: Endpoint[] = [];
  for (const dataplane of selectedDataplanes(meshService.spec, [...context.dataplanesByName.values()], { onlyHealthy: true })) {
    for (const inbound of dataplane.spec.networking.inbound ?? []) {
      if (isHealthyInbound(inbound) && inboundServesPort(inbound, servedPort)) endpoints.push(inboundEndpoint(dataplane, inbound, portProtocol(servedPort)));
    }
  }
  return endpoints;
}
