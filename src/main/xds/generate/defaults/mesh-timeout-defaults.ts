import type { Protocol } from '../../../../shared/resources.js';
import type { ProtoJson } from '../../protocol/proto-json.js';

// What Kuma's MeshTimeout plugin writes on every sidecar, even where no MeshTimeout exists: a
// running kuma-cp runs the plugin with an empty configuration, and each missing value falls back to
// a default (pkg/plugins/policies/meshtimeout/plugin/xds/configurer.go, values from
// pkg/plugins/policies/core/defaults/consts.go). A meshtimeout policy plugin will compute a
// MeshTimeoutConf per inbound and outbound and hand it to these same functions.

/** MeshTimeout's `default` (pkg/plugins/policies/meshtimeout/api/v1alpha1), durations in proto3 JSON. */
export interface MeshTimeoutConf {
  connectionTimeout: string;
  idleTimeout: string;
  http: {
    requestTimeout: string;
    streamIdleTimeout: string;
    maxStreamDuration: string;
    maxConnectionDuration: string;
    requestHeadersTimeout: string;
  };
}

/** The values Kuma falls back to when no MeshTimeout sets them. */
export const MESH_TIMEOUT_DEFAULTS: MeshTimeoutConf = {
  connectionTimeout: '5s',
  idleTimeout: '3600s',
  http: {
    requestTimeout: '15s',
    streamIdleTimeout: '1800s',
    maxStreamDuration: '0s',
    maxConnectionDuration: '0s',
    requestHeadersTimeout: '0s',
  },
};

/**
 * A cluster's connect timeout, and for http and http2 (not grpc: Kuma's switch leaves it out) the
 * upstream HTTP options' idle timeout and durations, to be merged into `HttpProtocolOptions`.
 */
export function meshTimeoutClusterFields(
  conf: MeshTimeoutConf,
  protocol: Protocol,
): { connect_timeout: string; common_http_protocol_options?: ProtoJson } {
  const connect = { connect_timeout: conf.connectionTimeout };
  if (protocol !== 'http' && protocol !== 'http2') return connect;
  return {
    ...connect,
    common_http_protocol_options: {
      idle_timeout: conf.idleTimeout,
      max_stream_duration: conf.http.maxStreamDuration,
      max_connection_duration: conf.http.maxConnectionDuration,
    },
  };
}

/**
 * HttpConnectionManager fields: the connection idle timeout is 0s on the listener because MeshTimeout
 * sets it on the cluster instead (the old Timeout policy set it here).
 */
export function meshTimeoutHttpConnectionManagerFields(conf: MeshTimeoutConf): ProtoJson {
  return { common_http_protocol_options: { idle_timeout: '0s' }, request_headers_timeout: conf.http.requestHeadersTimeout };
}

/** RouteAction fields of every route: request timeout and per-route stream idle timeout. */
export function meshTimeoutRouteActionFields(conf: MeshTimeoutConf): ProtoJson {
  return { timeout: conf.http.requestTimeout, idle_timeout: conf.http.streamIdleTimeout };
}

/** TcpProxy fields. */
export function meshTimeoutTcpProxyFields(conf: MeshTimeoutConf): ProtoJson {
  return { idle_timeout: conf.idleTimeout };
}
