import { SERVICE_TAG } from '../../../shared/resources.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { socketAddress } from './endpoints.js';
import { httpConnectionManager, httpConnectionManagerFilter } from './filters.js';
import type { Proxy } from './proxy.js';
import { downstreamTlsTransportSocket } from './tls-contexts.js';

/**
 * The name an xDS-enabled gRPC server asks for (gRFC A36): the bootstrap's
 * `server_listener_resource_name_template` with the address it binds.
 */
export const GRPC_SERVER_LISTENER_TEMPLATE = 'grpc/server?xds.resource.listening_address=%s';

export function grpcServerListenerName(address: string, port: number): string {
  return GRPC_SERVER_LISTENER_TEMPLATE.replace('%s', `${address.includes(':') ? `[${address}]` : address}:${port}`);
}

/**
 * The listener of each tagged inbound, for a proxyless gRPC server (grpc-js-xds `XdsServer`, C-core's
 * xDS server) listening there: its socket address must be the one it binds, one HttpConnectionManager
 * whose routes only let calls through (`non_forwarding_action`), and with mTLS in STRICT the server's
 * DownstreamTlsContext from its certificate providers (PERMISSIVE: see grpcClientTls). A client that is
 * not an xDS server never asks for these names.
 */
export function grpcServerListeners(context: MeshContext, proxy: Proxy): { name: string; listener: ProtoJson }[] {
  const mtls = meshMtls(context.mesh);
  const { networking } = proxy.dataplane.spec;
  return (networking.inbound ?? []).flatMap((inbound) => {
    const service = inbound.tags?.[SERVICE_TAG];
    if (service === undefined) return [];
    const address = inbound.address ?? networking.address;
    const name = grpcServerListenerName(address, inbound.port);
    const routeConfig = {
      name: `inbound:${service}`,
      virtual_hosts: [{ name: service, domains: ['*'], routes: [{ match: { prefix: '' }, non_forwarding_action: {} }] }],
    };
    const secured = mtls?.mode === 'STRICT';
    // With mTLS the server learns the caller's identity, as Kuma's inbound HttpConnectionManager
    // says. It also keeps grpc-js-xds 1.14 working: its XdsServer compares a new listener's filter
    // bytes before its transport socket, whose comparison is inverted (mTLS turned on reads as "no
    // change", turned off crashes it), so the TLS and plaintext listeners must differ in the filter.
    const clientCertFields = secured ? { forward_client_cert_details: 'SANITIZE_SET', set_current_client_cert_details: { uri: true } } : {};
    const chain = {
      filters: [httpConnectionManagerFilter(httpConnectionManager(service, { routeConfig }, clientCertFields))],
      ...(secured && { transport_socket: downstreamTlsTransportSocket(mtls.mesh, 'certificate-provider') }),
    };
    return [{ name, listener: { name, address: socketAddress(address, inbound.port), filter_chains: [chain], traffic_direction: 'INBOUND' } }];
  });
}
