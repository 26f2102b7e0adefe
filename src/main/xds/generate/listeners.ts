import type { Protocol, Tags } from '../../../shared/resources.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { socketAddress } from './endpoints.js';
import { grpcStatsFilter, httpConnectionManager, httpConnectionManagerFilter, tcpProxyFilter } from './filters.js';
import { internalAddressConfigFields } from './internal-addresses.js';
import { sanitizeMetric } from './names.js';
import { SIDECAR_ROUTE_CONFIG_FIELDS, routeToCluster } from './routes.js';

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
    filter_chains: [{ filters: [filter] }],
    traffic_direction: options.direction,
    ...tagsMetadata(options.tags),
  };
}

/** Kuma's TagsMetadata: a listener's tags under the `io.kuma.tags` filter metadata; none without tags. */
function tagsMetadata(tags: Tags): ProtoJson {
  return Object.keys(tags).length === 0 ? {} : { metadata: { filter_metadata: { 'io.kuma.tags': { ...tags } } } };
}
