// Typed-config type URLs and well-known names of the Envoy extensions the generators use.

export const HTTP_CONNECTION_MANAGER_TYPE_URL =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
export const HTTP_CONNECTION_MANAGER_FILTER = 'envoy.filters.network.http_connection_manager';

export const TCP_PROXY_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
export const TCP_PROXY_FILTER = 'envoy.filters.network.tcp_proxy';

export const ROUTER_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
export const ROUTER_FILTER = 'envoy.filters.http.router';

export const GRPC_STATS_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.grpc_stats.v3.FilterConfig';
export const GRPC_STATS_FILTER = 'envoy.filters.http.grpc_stats';

/** Key in `typed_extension_protocol_options` and the type URL of its value. */
export const HTTP_PROTOCOL_OPTIONS = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
export const HTTP_PROTOCOL_OPTIONS_TYPE_URL = `type.googleapis.com/${HTTP_PROTOCOL_OPTIONS}`;

export const UPSTREAM_TLS_CONTEXT_TYPE_URL = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext';
export const TLS_TRANSPORT_SOCKET = 'envoy.transport_sockets.tls';
export const DOWNSTREAM_TLS_CONTEXT_TYPE_URL = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext';

export const TLS_INSPECTOR_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector';
export const TLS_INSPECTOR_FILTER = 'envoy.filters.listener.tls_inspector';
