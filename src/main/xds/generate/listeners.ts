import type { Protocol, Tags } from '../../../shared/resources.js';
import type { MtlsMode } from '../../mtls/mesh-mtls.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { socketAddress } from './endpoints.js';
import { TLS_INSPECTOR_FILTER, TLS_INSPECTOR_TYPE_URL } from './extension-types.js';
import { grpcStatsFilter, httpConnectionManager, httpConnectionManagerFilter, tcpProxyFilter } from './filters.js';
import { internalAddressConfigFields } from './internal-addresses.js';
import { sanitizeMetric } from './names.js';
import { SIDECAR_ROUTE_CONFIG_FIELDS, routeToCluster } from './routes.js';
import { KUMA_ALPN } from './tls-contexts.js';

/** Mesh mTLS on an inbound listener: the mode and the DownstreamTlsContext transport socket. */
export interface InboundMtls {
  mode: MtlsMode;
  transportSocket: ProtoJson;
}

export interface ProxyListenerOptions {
  name: string;
  address: string;
  port: number;
  direction: 'INBOUND' | 'OUTBOUND';
  /** Sets SO_REUSEPORT either way when given (Kuma does on inbound listeners), else leaves Envoy's default. */
  reusePort?: boolean;
  protocol: Protocol;
  /** Published as the listener's `io.kuma.tags` metadata, which Kuma's policies and dashboards read. */
  tags: Tags;
  /** Where the listener forwards. */
  cluster: string;
  /** Names the inline route and its virtual host when the protocol is HTTP-based. */
  routeName: string;
  virtualHostName: string;
  /** Names the catch-all route (outbound routes carry MeshHTTPRoute's rule name). */
  catchAllRouteName?: string;
  /** RouteConfiguration fields beside the common ones. */
  routeConfigFields?: ProtoJson;
  /** Fields policies (or their defaults) add to the TcpProxy, the HttpConnectionManager and each route's action. */
  tcpProxyFields?: ProtoJson;
  httpConnectionManagerFields?: ProtoJson;
  routeActionFields?: ProtoJson;
  /** Inbound listeners of a mesh with mTLS on. */
  mtls?: InboundMtls;
}

/**
 * An Envoy listener forwarding everything to one cluster: byte for byte with tcp_proxy for tcp,
 * through an HttpConnectionManager with one route for http, http2 and grpc (with gRPC stats for
 * grpc), declaring kuma-cp's internal addresses.
 */
export function proxyListener(options: ProxyListenerOptions): ProtoJson {
  const prefix = sanitizeMetric(options.cluster);
  const filter =
    options.protocol === 'tcp'
      ? tcpProxyFilter(prefix, options.cluster, options.tcpProxyFields)
      : httpConnectionManagerFilter(
          httpConnectionManager(
            prefix,
            {
              routeConfig: routeToCluster(options.routeName, options.virtualHostName, options.cluster, {
                name: options.catchAllRouteName,
                action: options.routeActionFields,
                config: { ...SIDECAR_ROUTE_CONFIG_FIELDS, ...options.routeConfigFields },
              }),
            },
            { ...internalAddressConfigFields(), ...options.httpConnectionManagerFields },
            options.protocol === 'grpc' ? [grpcStatsFilter()] : [],
          ),
        );
  return {
    name: options.name,
    address: socketAddress(options.address, options.port),
    ...(options.reusePort !== undefined && { enable_reuse_port: options.reusePort }),
    ...filterChains([filter], options.mtls),
    traffic_direction: options.direction,
    ...tagsMetadata(options.tags),
  };
}

/**
 * The listener's filter chains (Kuma's inbound_proxy_generator.go). Without mTLS one plain chain;
 * STRICT one chain behind the DownstreamTlsContext; PERMISSIVE, told apart by the TLS inspector, a
 * plaintext chain, a chain for TLS the application terminates itself, and the mesh's mTLS chain
 * (TLS with ALPN `kuma`). The chain with the transport socket is the one an RBAC filter
 * (MeshTrafficPermission) goes in front of, as Kuma only enforces permissions on mTLS chains.
 */
function filterChains(filters: ProtoJson[], mtls: InboundMtls | undefined): ProtoJson {
  if (mtls === undefined) return { filter_chains: [{ filters }] };
  const secured = { filters, transport_socket: mtls.transportSocket };
  if (mtls.mode === 'STRICT') return { filter_chains: [secured] };
  return {
    filter_chains: [
      { filter_chain_match: { transport_protocol: 'raw_buffer' }, filters },
      { filter_chain_match: { transport_protocol: 'tls' }, filters },
      { filter_chain_match: { transport_protocol: 'tls', application_protocols: [KUMA_ALPN] }, ...secured },
    ],
    listener_filters: [{ name: TLS_INSPECTOR_FILTER, typed_config: { '@type': TLS_INSPECTOR_TYPE_URL } }],
  };
}

/** Kuma's TagsMetadata: a listener's tags under the `io.kuma.tags` filter metadata; none without tags. */
function tagsMetadata(tags: Tags): ProtoJson {
  return Object.keys(tags).length === 0 ? {} : { metadata: { filter_metadata: { 'io.kuma.tags': { ...tags } } } };
}
