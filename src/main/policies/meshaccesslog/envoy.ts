// MeshAccessLog on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go applyToInbounds and
// applyToOutbounds): an access log per backend on the HttpConnectionManager or tcp_proxy of the
// inbound listeners (`from`/`rules`) and the outbound listeners (`to`).
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG, type DataplaneSpec } from '../../../shared/resources.js';
import { inboundListenerName, outboundListenerName } from '../../xds/generate/names.js';
import { workloadKri } from '../../resources/kri.js';
import { DEFAULT_OUTBOUND_ADDRESS } from '../../xds/generate/outbound-proxy-generator.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { HTTP_CONNECTION_MANAGER_FILTER, TCP_PROXY_FILTER } from '../../xds/generate/extension-types.js';
import { filterChains, withChainFilters } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import type { RuleMatch } from '../core/policy.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { inboundKey, ruleFor } from '../core/rules.js';
import { accessLog, accessLogSocketPath, defaultFormat, type KumaValues } from './access-log.js';
import type { Backend, MeshAccessLogConf } from './api.js';

const TLS_INSPECTOR = 'envoy.filters.listener.tls_inspector';
const TLS_INSPECTOR_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector';

export const TCP_BACKEND_NEEDS_KUMA_DP =
  "a Tcp backend is kuma-dp's log forwarder: Envoy writes to kuma-dp's socket in its work directory and kuma-dp sends to the address. This proxy runs without kuma-dp (its node metadata has no `workdir`), and Envoy itself has no plain TCP logger";
export const OPEN_TELEMETRY_NOT_APPLIED = 'meshdesk applies File and Tcp backends; an OpenTelemetry backend needs a collector cluster it does not build';

/** One conf's backends on one listener, with the CEL condition of the rule's match and the items behind it. */
interface ListenerLogs {
  backends: readonly Backend[];
  filter?: string;
  origins: readonly PolicyOrigin[];
}

export function applyMeshAccessLogToEnvoy(input: PluginInput<MeshAccessLogConf>): void {
  const { proxy, rules } = input;
  const { meta, spec } = proxy.dataplane;
  const { networking } = spec;
  const base = { sourceIp: networking.address, mesh: meta.mesh, zone: meta.labels['kuma.io/zone'] ?? '', workload: workloadKri(meta) };
  const socket = proxy.workDir === undefined ? undefined : accessLogSocketPath(proxy.workDir, meta.name, meta.mesh);
  const reported = new Set<string>();
  const report = (logs: readonly ListenerLogs[]) => reportUnappliedBackends(input, logs, socket !== undefined, reported);

  const done = new Set<string>();
  for (const inbound of networking.inbound ?? []) {
    if (inbound.tags?.[SERVICE_TAG] === undefined) continue;
    const address = inbound.address ?? networking.address;
    const key = inboundKey(address, inbound.port);
    if (done.has(key)) continue;
    done.add(key);
    const logs = (rules.inbound.get(key) ?? []).map((rule) => ({ backends: rule.conf.backends ?? [], filter: celOf(rule.match), origins: rule.origins }));
    // On inbound traffic the control plane cannot know who calls: the source service is "unknown".
    const values: KumaValues = { ...base, sourceService: 'unknown', destinationService: identifyingService(spec), direction: 'INBOUND' };
    const sni = (rules.inbound.get(key) ?? []).some((rule) => rule.match?.sni);
    if (withAccessLogs(input, inboundListenerName(address, inbound.port), logs, values, socket, sni)) report(logs);
  }
  for (const outbound of networking.outbound ?? []) {
    const service = outbound.tags?.[SERVICE_TAG];
    const rule = service === undefined ? undefined : ruleFor(rules.to, { [SERVICE_TAG]: service });
    if (service === undefined || !rule) continue;
    const values: KumaValues = { ...base, sourceService: identifyingService(spec), destinationService: service, direction: 'OUTBOUND' };
    const name = outboundListenerName(outbound.address ?? DEFAULT_OUTBOUND_ADDRESS, outbound.port);
    const logs = [{ backends: rule.conf.backends ?? [], origins: rule.origins }];
    if (withAccessLogs(input, name, logs, values, socket, false)) report(logs);
  }
}

/** Kuma's IdentifyingName: the first of the proxy's services in order, else "unknown". */
function identifyingService({ networking }: DataplaneSpec): string {
  const services = [...new Set((networking.inbound ?? []).flatMap((inbound) => inbound.tags?.[SERVICE_TAG] ?? []))].sort();
  return services[0] ?? 'unknown';
}

/** Kuma's MatchToCEL: a condition on the connection a matched rule's logs are kept to. */
function celOf(match: RuleMatch | undefined): string | undefined {
  if (!match) return undefined;
  const parts: string[] = [];
  if (match.spiffeID?.type === 'Exact') parts.push(`connection.uri_san_peer_certificate == ${JSON.stringify(match.spiffeID.value)}`);
  if (match.spiffeID?.type === 'Prefix') parts.push(`connection.uri_san_peer_certificate.startsWith(${JSON.stringify(match.spiffeID.value)})`);
  if (match.sni) parts.push(`connection.requested_server_name == ${JSON.stringify(match.sni.value)}`);
  return parts.length > 0 ? parts.join(' && ') : undefined;
}

/**
 * Appends the logs to every HttpConnectionManager and tcp_proxy of the listener (Kuma's AccessLogs).
 * False when the proxy has no such listener.
 */
function withAccessLogs(
  { resources }: PluginInput<MeshAccessLogConf>,
  name: string,
  logs: readonly ListenerLogs[],
  values: KumaValues,
  socket: string | undefined,
  sni: boolean,
): boolean {
  const listener = resources.get(LISTENER_TYPE_URL, name);
  if (!listener) return false;
  let changed = listener;
  const set: { path: string; origins: readonly PolicyOrigin[] }[] = [];
  for (const chain of filterChains(listener)) {
    const filters = chain.filters.map((filter, index) => {
      if (filter.name !== HTTP_CONNECTION_MANAGER_FILTER && filter.name !== TCP_PROXY_FILTER) return filter;
      const format = defaultFormat(filter.name === HTTP_CONNECTION_MANAGER_FILTER);
      const config = filter.typed_config as ProtoJson;
      const existing = (config.access_log ?? []) as ProtoJson[];
      const added: ProtoJson[] = [];
      for (const { backends, filter: cel, origins } of logs) {
        for (const backend of backends) {
          const log = accessLog(backend, format, values, socket, cel);
          if (!log) continue;
          set.push({ path: `${chain.path}[${index}].typed_config.access_log[${existing.length + added.length}]`, origins });
          added.push(log);
        }
      }
      return added.length === 0 ? filter : { ...filter, typed_config: { ...config, access_log: [...existing, ...added] } };
    });
    changed = withChainFilters(changed, chain.chain, filters);
  }
  if (set.length === 0) return true;
  // An SNI condition reads the requested server name, which only the TLS inspector finds out.
  const listenerFilters = (changed.listener_filters ?? []) as ProtoJson[];
  if (sni && !listenerFilters.some((filter) => filter.name === TLS_INSPECTOR)) {
    changed = { ...changed, listener_filters: [...listenerFilters, { name: TLS_INSPECTOR, typed_config: { '@type': TLS_INSPECTOR_TYPE_URL } }] };
  }
  resources.put(LISTENER_TYPE_URL, name, changed, set);
  return true;
}

/** Backends this proxy cannot have, once per item and backend: OpenTelemetry ones, and Tcp ones without kuma-dp. */
function reportUnappliedBackends(input: PluginInput<MeshAccessLogConf>, logs: readonly ListenerLogs[], hasKumaDp: boolean, reported: Set<string>): void {
  for (const { backends, origins } of logs) {
    backends.forEach((backend, index) => {
      const reason = backend.type === 'OpenTelemetry' ? OPEN_TELEMETRY_NOT_APPLIED : backend.type === 'Tcp' && !hasKumaDp ? TCP_BACKEND_NEEDS_KUMA_DP : undefined;
      const key = `${origins.at(-1)?.name} ${origins.at(-1)?.item} ${index}`;
      if (!reason || reported.has(key)) return;
      reported.add(key);
      reportUnapplied(input, origins, `default.backends[${index}]`, reason);
    });
  }
}
