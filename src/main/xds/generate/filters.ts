import type { ProtoJson } from '../protocol/proto-json.js';
import { adsConfigSource } from './config-source.js';
import {
  GRPC_STATS_FILTER,
  GRPC_STATS_TYPE_URL,
  HTTP_CONNECTION_MANAGER_FILTER,
  HTTP_CONNECTION_MANAGER_TYPE_URL,
  ROUTER_FILTER,
  ROUTER_TYPE_URL,
  TCP_PROXY_FILTER,
  TCP_PROXY_TYPE_URL,
} from './extension-types.js';

/** Where a tcp_proxy sends connections: one cluster, or several by weight (a MeshTCPRoute split). */
export type TcpProxyDestination = string | readonly { name: string; weight: number }[];

/** A tcp_proxy filter to `destination`; `fields` adds TcpProxy fields (timeouts). */
export function tcpProxyFilter(statPrefix: string, destination: TcpProxyDestination, fields: ProtoJson = {}): ProtoJson {
  const clusterSpecifier = typeof destination === 'string' ? { cluster: destination } : { weighted_clusters: { clusters: destination } };
  return {
    name: TCP_PROXY_FILTER,
    typed_config: { '@type': TCP_PROXY_TYPE_URL, stat_prefix: statPrefix, ...clusterSpecifier, ...fields },
  };
}

export function httpConnectionManagerFilter(httpConnectionManager: ProtoJson): ProtoJson {
  return { name: HTTP_CONNECTION_MANAGER_FILTER, typed_config: httpConnectionManager };
}

/** Where an HttpConnectionManager gets its routes: inline, or by name over ADS. */
export type RouteSource = { routeConfig: ProtoJson } | { rdsRouteName: string };

/**
 * An HttpConnectionManager (as an Any) whose HTTP filters are `httpFilters` and then the router:
 * Envoy and gRPC both require the router to be the last filter. `fields` adds HttpConnectionManager fields.
 */
export function httpConnectionManager(
  statPrefix: string,
  routes: RouteSource,
  fields: ProtoJson = {},
  httpFilters: readonly ProtoJson[] = [],
): ProtoJson {
  const routeSpecifier =
    'routeConfig' in routes
      ? { route_config: routes.routeConfig }
      : { rds: { config_source: adsConfigSource(), route_config_name: routes.rdsRouteName } };
  return {
    '@type': HTTP_CONNECTION_MANAGER_TYPE_URL,
    stat_prefix: statPrefix,
    codec_type: 'AUTO',
    ...routeSpecifier,
    http_filters: [...httpFilters, { name: ROUTER_FILTER, typed_config: { '@type': ROUTER_TYPE_URL } }],
    ...fields,
  };
}

/** Kuma's GrpcStatsConfigurer: per-call gRPC stats, emitted as filter state for access logs. */
export function grpcStatsFilter(): ProtoJson {
  return { name: GRPC_STATS_FILTER, typed_config: { '@type': GRPC_STATS_TYPE_URL, emit_filter_state: true } };
}
