import { SERVICE_TAG, type Tags } from '../../../shared/resources.js';
import type { Endpoint, MeshContext } from '../context/mesh-context.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { memoizedForContext } from './context-memo.js';

export function socketAddress(address: string, port: number): ProtoJson {
  return { socket_address: { address, port_value: port } };
}

/** Who reads an assignment: Envoy sidecars, or gRPC's own xDS client. */
export type EndpointsReader = 'envoy' | 'grpc';

/**
 * The endpoints of one service as a ClusterLoadAssignment, each with its tags as Kuma's endpoint
 * metadata. For Envoy they sit in no locality, as in Kuma without zones; gRPC drops endpoints
 * outside a weighted locality, so for it they sit in one named after the mesh (a local mesh has
 * no zones). An address:port listed twice (two Dataplanes claiming one socket) is kept once:
 * gRPC rejects the whole assignment over a duplicate address, and Envoy would double its weight.
 * No endpoints give an empty assignment, so that the cluster still warms.
 */
export function clusterLoadAssignment(
  clusterName: string,
  endpoints: readonly Endpoint[],
  meshName: string,
  reader: EndpointsReader,
): ProtoJson {
  const unique = withoutDuplicateSockets(endpoints);
  if (unique.length === 0) return { cluster_name: clusterName, endpoints: [] };
  const lbEndpoints = unique.map((endpoint) => ({
    endpoint: { address: socketAddress(endpoint.address, endpoint.port) },
    load_balancing_weight: endpoint.weight,
    ...endpointMetadata(endpoint.tags, endpoint.labels),
  }));
  const locality = reader === 'grpc' ? { locality: { zone: meshName }, load_balancing_weight: 1 } : {};
  return { cluster_name: clusterName, endpoints: [{ ...locality, lb_endpoints: lbEndpoints }] };
}

/** The ClusterLoadAssignment of a service, named after it: built once per context and reader, the same object for every proxy. */
export function serviceEndpoints(context: MeshContext, service: string, reader: EndpointsReader): ProtoJson {
  return memoizedForContext(context, `endpoints\n${reader}\n${service}`, () =>
    clusterLoadAssignment(service, context.endpointsByService.get(service) ?? [], context.mesh.meta.name, reader),
  );
}

/**
 * Kuma's EndpointMetadataWithLabels: the endpoint's tags but the service (the cluster already
 * names it), for subset load balancing and transport socket matching, and its Dataplane's labels
 * under `io.kuma.labels`, for locality-aware load balancing; none without either.
 */
export function endpointMetadata(tags: Tags, labels: Readonly<Record<string, string>>): ProtoJson {
  const { [SERVICE_TAG]: _service, ...rest } = tags;
  const filterMetadata = {
    ...(Object.keys(rest).length > 0 && { 'envoy.lb': { ...rest }, 'envoy.transport_socket_match': { ...rest } }),
    ...(Object.keys(labels).length > 0 && { 'io.kuma.labels': { ...labels } }),
  };
  return Object.keys(filterMetadata).length === 0 ? {} : { metadata: { filter_metadata: filterMetadata } };
}

/** Keeps the first endpoint of each address:port. */
function withoutDuplicateSockets(endpoints: readonly Endpoint[]): Endpoint[] {
  const seen = new Set<string>();
  return endpoints.filter((endpoint) => {
    const socket = `${endpoint.address}:${endpoint.port}`;
    if (seen.has(socket)) return false;
    seen.add(socket);
    return true;
  });
}
