// A MeshAccessLog backend as an Envoy access log (Kuma's plugin/xds/configurer.go BaseAccessLogBuilder
// and pkg/xds/envoy/listeners/v3/access_log_configurer.go InterpolateKumaValues).
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { ProxyBoundValue } from '../core/proxy-bound.js';
import type { Backend, Format } from './api.js';

const FILE_ACCESS_LOG = 'envoy.access_loggers.file';
const FILE_ACCESS_LOG_TYPE_URL = 'type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog';
const CEL_FILTER = 'envoy.access_loggers.extension_filters.cel';
const CEL_FILTER_TYPE_URL = 'type.googleapis.com/envoy.extensions.access_loggers.filters.cel.v3.ExpressionFilter';

const DEFAULT_TCP_FORMAT =
  '[%START_TIME%] %RESPONSE_FLAGS% %KUMA_MESH% %KUMA_SOURCE_ADDRESS_WITHOUT_PORT%(%KUMA_SOURCE_SERVICE%)->%UPSTREAM_HOST%(%KUMA_DESTINATION_SERVICE%) took %DURATION%ms, sent %BYTES_SENT% bytes, received: %BYTES_RECEIVED% bytes';
const DEFAULT_HTTP_FORMAT =
  '[%START_TIME%] %KUMA_MESH% "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-B3-TRACEID?X-DATADOG-TRACEID)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%KUMA_SOURCE_SERVICE%" "%KUMA_DESTINATION_SERVICE%" "%KUMA_SOURCE_ADDRESS_WITHOUT_PORT%" "%UPSTREAM_HOST%"';

/** Kuma's DefaultFormat: the HTTP one on a listener that speaks HTTP (an HttpConnectionManager), else the network one. */
export function defaultFormat(http: boolean): string {
  return http ? DEFAULT_HTTP_FORMAT : DEFAULT_TCP_FORMAT;
}

/** What the control plane writes for Kuma's placeholders (KumaValues): Envoy cannot know them. */
export interface KumaValues {
  sourceService: string;
  sourceIp: string;
  destinationService: string;
  mesh: string;
  zone: string;
  workload: string;
  direction: 'INBOUND' | 'OUTBOUND';
}

/** Kuma's InterpolateKumaValues, in its order. */
export function interpolate(format: string, values: KumaValues): string {
  const sourceAddress = values.sourceIp.includes(':') ? `[${values.sourceIp}]:0` : `${values.sourceIp}:0`;
  return format
    .replaceAll('%KUMA_SOURCE_ADDRESS%', sourceAddress)
    .replaceAll('%KUMA_SOURCE_ADDRESS_WITHOUT_PORT%', values.sourceIp)
    .replaceAll('%KUMA_SOURCE_SERVICE%', values.sourceService)
    .replaceAll('%KUMA_DESTINATION_SERVICE%', values.destinationService)
    .replaceAll('%KUMA_MESH%', values.mesh)
    .replaceAll('%KUMA_TRAFFIC_DIRECTION%', values.direction)
    .replaceAll('%KUMA_ZONE%', values.zone)
    .replaceAll('%KUMA_WORKLOAD%', values.workload);
}

/**
 * A text of a log format with Kuma's values in it (see `interpolate`): the text itself, or, where
 * the values are the proxy's own, a marker that writes them last (see ProxyBoundValue).
 */
export type LogText = string | ProxyBoundValue;

/** How a listener's log formats get Kuma's values: `interpolate` with them, or a marker per template. */
export type Interpolated = (template: string) => LogText;

function jsonFields(format: Format, text: Interpolated): ProtoJson {
  return Object.fromEntries((format.json ?? []).map(({ key, value }) => [key, text(value)]));
}

/** A file backend's log format: a text line (ended by a newline) or a JSON object. */
function fileLogFormat(format: Format | undefined, fallback: string, text: Interpolated): ProtoJson {
  const omit = format?.omitEmptyValues ? { omit_empty_values: true } : {};
  if (format?.json) return { json_format: jsonFields(format, text), ...omit };
  return { text_format_source: { inline_string: text(`${format?.plain ?? fallback}\n`) }, ...omit };
}

/** A TCP backend's log format: JSON lines `{address, message}`, which kuma-dp sends to `address`. */
function tcpLogFormat(address: string, format: Format | undefined, fallback: string, text: Interpolated): ProtoJson {
  const message = format?.json ? jsonFields(format, text) : text(`${format?.plain ?? fallback}\n`);
  return { json_format: { address, message }, ...(format?.omitEmptyValues && { omit_empty_values: true }) };
}

/** Kuma's AccessLogSocketName: `<workDir>/kuma-al-<dataplane>-<mesh>`, cut to fit a Unix socket path, then `.sock`. */
export function accessLogSocketPath(workDir: string, dataplane: string, mesh: string): string {
  return `${`${workDir.replace(/\/+$/, '')}/kuma-al-${dataplane}-${mesh}`.slice(0, 98)}.sock`;
}

/**
 * The access log of a File or Tcp backend (a Tcp one through kuma-dp's socket at `socketPath`),
 * kept to connections matching the CEL `filter` when given.
 */
export function accessLog(
  backend: Backend,
  fallbackFormat: string,
  text: Interpolated,
  socketPath: LogText | undefined,
  filter?: string,
): ProtoJson | undefined {
  let config: ProtoJson;
  if (backend.type === 'File' && backend.file) {
    config = { path: backend.file.path, log_format: fileLogFormat(backend.file.format, fallbackFormat, text) };
  } else if (backend.type === 'Tcp' && backend.tcp && socketPath) {
    config = { path: socketPath, log_format: tcpLogFormat(backend.tcp.address, backend.tcp.format, fallbackFormat, text) };
  } else {
    return undefined;
  }
  return {
    name: FILE_ACCESS_LOG,
    ...(filter && { filter: { extension_filter: { name: CEL_FILTER, typed_config: { '@type': CEL_FILTER_TYPE_URL, expression: filter } } } }),
    typed_config: { '@type': FILE_ACCESS_LOG_TYPE_URL, ...config },
  };
}
