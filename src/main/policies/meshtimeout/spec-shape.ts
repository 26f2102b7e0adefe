import { defaultsIn, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration } from '../core/served-value.js';

const HTTP_PROTOCOL_OPTIONS = 'envoy.config.core.v3.HttpProtocolOptions';
const HCM = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

/** Kuma's MeshTimeout schema (rest.yaml): the `default` of each `to`, `from` and `rules` item; every timeout a Go duration string. */
export const meshTimeoutSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    connectionTimeout: servedDuration('envoy.config.cluster.v3.Cluster.connect_timeout'),
    idleTimeout: servedDuration(`${HTTP_PROTOCOL_OPTIONS}.idle_timeout`),
    http: object({
      requestTimeout: servedDuration('envoy.config.route.v3.RouteAction.timeout'),
      streamIdleTimeout: servedDuration(`${HCM}.stream_idle_timeout`),
      maxStreamDuration: servedDuration(`${HTTP_PROTOCOL_OPTIONS}.max_stream_duration`),
      maxConnectionDuration: servedDuration(`${HTTP_PROTOCOL_OPTIONS}.max_connection_duration`),
      requestHeadersTimeout: servedDuration(`${HCM}.request_headers_timeout`),
    }),
  }),
);
