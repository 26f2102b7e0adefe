import { SERVICE_TAG, type Protocol } from '../../../shared/resources.js';
import { goDurationToProtoJson } from '../../resources/go-duration.js';
import { serviceProtocol } from '../../xds/context/mesh-context.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { decimalFromIntOrString } from '../core/conf-checks.js';
import type { PluginInput } from '../core/plugin.js';
import { ProxyBoundValue } from '../core/proxy-bound.js';
import { dataplaneTagSet, serializeTags } from '../core/proxy-tags.js';
import { outboundServiceNames, serviceClusterNames } from '../core/outbound-targets.js';
import { ruleFor } from '../core/rules.js';
import { keyOf, putEdited } from '../core/shared-edits.js';
import type { GrpcHealthCheck, HeaderModifier, HttpHealthCheck, MeshHealthCheckConf, TcpHealthCheck } from './api.js';

// Kuma's MeshHealthCheck plugin (plugin/v1alpha1/plugin.go) and its configurer (plugin/xds/configurer.go):
// an active health check on every cluster of each outbound service, chosen by the service's protocol.

/** What Kuma's configurer falls back to for a field the conf leaves out. */
const DEFAULT_INTERVAL = '60s';
const DEFAULT_TIMEOUT = '15s';
const DEFAULT_UNHEALTHY_THRESHOLD = 5;
const DEFAULT_HEALTHY_THRESHOLD = 1;
const DEFAULT_HTTP_PATH = '/';
const KUMA_TAGS_HEADER = 'x-kuma-tags';
const FILE_EVENT_SINK = 'envoy.health_check.event_sinks.file';
const FILE_EVENT_SINK_TYPE_URL = 'type.googleapis.com/envoy.extensions.health_check.event_sinks.file.v3.HealthCheckEventFileSink';

/** The checking proxy's tags, written last (see ProxyBoundValue): every proxy shares the edited clusters. */
const PROXY_TAGS = new ProxyBoundValue('the proxy\'s tags (x-kuma-tags)', (proxy) => serializeTags(dataplaneTagSet(proxy.dataplane)));

/** Applies each outbound service's MeshHealthCheck conf to its clusters (Kuma's applyToOutbounds). */
export function applyMeshHealthCheckToEnvoy({ proxy, context, rules, resources }: PluginInput<MeshHealthCheckConf>): void {
  // HTTP checks carry the proxy's tags (x-kuma-tags) when it has any.
  const kumaTags = dataplaneTagSet(proxy.dataplane).size > 0 ? PROXY_TAGS : undefined;
  const clusters = serviceClusterNames(resources);
  for (const service of outboundServiceNames(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    if (!rule) continue;
    const protocol = serviceProtocol(context, service);
    for (const name of clusters.get(service) ?? []) {
      putEdited(resources, CLUSTER_TYPE_URL, name, ['MeshHealthCheck cluster', protocol, keyOf(rule), kumaTags ? 'x-kuma-tags' : ''], (draft) => {
        const { cluster, set } = configureCluster(draft, rule.conf, protocol, kumaTags);
        Object.assign(draft, cluster);
        return set.length === 0 ? undefined : set.map((path) => ({ path, origins: rule.origins }));
      });
    }
  }
}

/** The `x-kuma-tags` value of HTTP checks: the proxy's serialized tags, or the marker they are written at. */
type KumaTagsValue = string | ProxyBoundValue;

/** Kuma's Configurer.Configure: a new cluster with the conf's health check and panic settings, and the fields it set. */
export function configureCluster(
  cluster: ProtoJson,
  conf: MeshHealthCheckConf,
  protocol: Protocol,
  kumaTags: KumaTagsValue | undefined,
): { cluster: ProtoJson; set: string[] } {
  const set: string[] = [];
  let commonLbConfig = (cluster['common_lb_config'] ?? {}) as ProtoJson;
  const panicThreshold = conf.healthyPanicThreshold === undefined ? undefined : decimalFromIntOrString(conf.healthyPanicThreshold);
  if (panicThreshold !== undefined) {
    commonLbConfig = { ...commonLbConfig, healthy_panic_threshold: { value: panicThreshold } };
    set.push('common_lb_config.healthy_panic_threshold');
  }
  // Envoy takes fail_traffic_on_panic only with zone-aware balancing; Kuma ignores it beside locality-weighted balancing.
  if (conf.failTrafficOnPanic !== undefined && commonLbConfig['locality_weighted_lb_config'] === undefined) {
    const zoneAware = (commonLbConfig['zone_aware_lb_config'] ?? {}) as ProtoJson;
    commonLbConfig = { ...commonLbConfig, zone_aware_lb_config: { ...zoneAware, fail_traffic_on_panic: conf.failTrafficOnPanic } };
    set.push('common_lb_config.zone_aware_lb_config.fail_traffic_on_panic');
  }
  const checker = healthChecker(conf, protocol, kumaTags);
  const healthChecks = (cluster['health_checks'] ?? []) as ProtoJson[];
  if (checker) set.push(`health_checks[${healthChecks.length}]`);
  return {
    cluster: {
      ...cluster,
      ...(Object.keys(commonLbConfig).length > 0 && { common_lb_config: commonLbConfig }),
      ...(checker && { health_checks: [...healthChecks, { ...healthCheckCommon(conf), ...checker }] }),
    },
    set,
  };
}

/**
 * The check for the destination's protocol (Kuma's selectHealthCheckType): HTTP for http and
 * http2, gRPC for grpc, TCP for tcp, and TCP instead of a disabled HTTP or gRPC one when TCP is on.
 */
function healthChecker(conf: MeshHealthCheckConf, protocol: Protocol, kumaTags: KumaTagsValue | undefined): ProtoJson | undefined {
  const on = (check: { disabled?: boolean } | undefined) => check !== undefined && check !== null && check.disabled !== true;
  const off = (check: { disabled?: boolean } | undefined) => check !== undefined && check !== null && check.disabled === true;
  const isHttp = protocol === 'http' || protocol === 'http2';
  if (isHttp && on(conf.http)) return { http_health_check: httpHealthCheck(conf.http!, protocol, kumaTags) };
  if (protocol === 'grpc' && on(conf.grpc)) return { grpc_health_check: grpcHealthCheck(conf.grpc!) };
  if (protocol === 'tcp' && on(conf.tcp)) return { tcp_health_check: tcpHealthCheck(conf.tcp!) };
  if (((isHttp && off(conf.http)) || (protocol === 'grpc' && off(conf.grpc))) && on(conf.tcp)) return { tcp_health_check: tcpHealthCheck(conf.tcp!) };
  return undefined;
}

/** Kuma's buildHealthCheck: the fields every kind of check shares, with Kuma's defaults. */
function healthCheckCommon(conf: MeshHealthCheckConf): ProtoJson {
  const duration = (text: string | undefined) => (text === undefined ? undefined : goDurationToProtoJson(text));
  const initialJitter = duration(conf.initialJitter);
  const intervalJitter = duration(conf.intervalJitter);
  const noTrafficInterval = duration(conf.noTrafficInterval);
  return {
    timeout: duration(conf.timeout) ?? DEFAULT_TIMEOUT,
    interval: duration(conf.interval) ?? DEFAULT_INTERVAL,
    ...(initialJitter !== undefined && { initial_jitter: initialJitter }),
    ...(intervalJitter !== undefined && { interval_jitter: intervalJitter }),
    ...(conf.intervalJitterPercent !== undefined && { interval_jitter_percent: conf.intervalJitterPercent }),
    unhealthy_threshold: conf.unhealthyThreshold ?? DEFAULT_UNHEALTHY_THRESHOLD,
    healthy_threshold: conf.healthyThreshold ?? DEFAULT_HEALTHY_THRESHOLD,
    ...(conf.reuseConnection !== undefined && { reuse_connection: conf.reuseConnection }),
    ...(noTrafficInterval !== undefined && { no_traffic_interval: noTrafficInterval }),
    // The file event sink, not the deprecated `event_log_path` field.
    ...(conf.eventLogPath !== undefined && {
      event_logger: [{ name: FILE_EVENT_SINK, typed_config: { '@type': FILE_EVENT_SINK_TYPE_URL, event_log_path: conf.eventLogPath } }],
    }),
    ...(conf.alwaysLogHealthCheckFailures !== undefined && { always_log_health_check_failures: conf.alwaysLogHealthCheckFailures }),
  };
}

/** Send and receive payloads are the given text's bytes in hex: Kuma does not decode them. */
function tcpHealthCheck(tcp: TcpHealthCheck): ProtoJson {
  const hex = (text: string) => ({ text: Buffer.from(text, 'utf8').toString('hex') });
  return {
    ...(tcp.send !== undefined && { send: hex(tcp.send) }),
    ...(tcp.receive !== undefined && { receive: tcp.receive.map(hex) }),
  };
}

function httpHealthCheck(http: HttpHealthCheck, protocol: Protocol, kumaTags: KumaTagsValue | undefined): ProtoJson {
  const headers = requestHeaders(http.requestHeadersToAdd, kumaTags);
  return {
    path: http.path ?? DEFAULT_HTTP_PATH,
    ...(headers.length > 0 && { request_headers_to_add: headers }),
    // Each expected status s is the range [s, s+1).
    ...(http.expectedStatuses !== undefined && { expected_statuses: http.expectedStatuses.map((status) => ({ start: status, end: status + 1 })) }),
    codec_client_type: protocol === 'http2' ? 'HTTP2' : 'HTTP1',
  };
}

/**
 * Kuma's mapHttpHeaders: the proxy's own tags as `x-kuma-tags` first (so that the destination's
 * policies see who checks it), then the `add` headers, then the `set` ones; a value with commas
 * becomes one header per value.
 */
function requestHeaders(modifier: HeaderModifier | undefined, kumaTags: KumaTagsValue | undefined): ProtoJson[] {
  const each = (list: HeaderModifier['add'], appendAction: string) =>
    (list ?? []).flatMap(({ name, value }) => value.split(',').map((part) => ({ header: { key: name, value: part }, append_action: appendAction })));
  return [
    ...(kumaTags !== undefined ? [{ header: { key: KUMA_TAGS_HEADER, value: kumaTags } }] : []),
    ...each(modifier?.add, 'APPEND_IF_EXISTS_OR_ADD'),
    ...each(modifier?.set, 'OVERWRITE_IF_EXISTS_OR_ADD'),
  ];
}

function grpcHealthCheck(grpc: GrpcHealthCheck): ProtoJson {
  return { service_name: grpc.serviceName ?? '', authority: grpc.authority ?? '' };
}
