// MeshAccessLog on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go applyToInbounds and
// applyToOutbounds): an access log per backend on the HttpConnectionManager or tcp_proxy of the
// inbound listeners (`from`/`rules`) and the outbound listeners (`to`).
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG } from '../../../shared/resources.js';
import { inboundListenerName, outboundListenerName } from '../../xds/generate/names.js';
import { DEFAULT_OUTBOUND_ADDRESS } from '../../xds/generate/outbound-proxy-generator.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { HTTP_CONNECTION_MANAGER_FILTER, TCP_PROXY_FILTER } from '../../xds/generate/extension-types.js';
import { filterChains, withChainFilters } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import type { RuleMatch } from '../core/policy.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { inboundKey, ruleFor } from '../core/rules.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { accessLog, accessLogSocketPath, defaultFormat, interpolate, type Interpolated, type KumaValues, type LogText } from './access-log.js';
import { identifyingService, KUMA_DP_SOCKET, outboundTexts, ownValues } from './outbound-values.js';
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
  const { proxy, context, rules, resources } = input;
  const { meta, spec } = proxy.dataplane;
  const { networking } = spec;
  const own = ownValues(proxy.dataplane);
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
    const name = inboundListenerName(address, inbound.port);
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (!listener) continue;
    const logs = (rules.inbound.get(key) ?? []).map((rule) => ({ backends: rule.conf.backends ?? [], filter: celOf(rule.match), origins: rule.origins }));
    // On inbound traffic the control plane cannot know who calls: the source service is "unknown".
    // An inbound listener is the proxy's own: its values are written in place.
    const values: KumaValues = { ...own, sourceService: 'unknown', destinationService: identifyingService(proxy.dataplane), direction: 'INBOUND' };
    const sni = (rules.inbound.get(key) ?? []).some((rule) => rule.match?.sni);
    const edited = withAccessLogs(listener, logs, (template) => interpolate(template, values), socket, sni);
    if (edited) resources.put(LISTENER_TYPE_URL, name, edited.listener, edited.set);
    report(logs);
  }
  for (const outbound of networking.outbound ?? []) {
    const service = outbound.tags?.[SERVICE_TAG];
    const rule = service === undefined ? undefined : ruleFor(rules.to, { [SERVICE_TAG]: service });
    const name = outboundListenerName(outbound.address ?? DEFAULT_OUTBOUND_ADDRESS, outbound.port);
    if (service === undefined || !rule || !resources.get(LISTENER_TYPE_URL, name)) continue;
    const logs = [{ backends: rule.conf.backends ?? [], origins: rule.origins }];
    // Shared by every proxy with this outbound and rule: the proxy's own values are markers (outbound-values.ts).
    const key = ['MeshAccessLog outbound listener', service, keyOf(rule), socket === undefined ? '' : 'kuma-dp'];
    putEdited(resources, LISTENER_TYPE_URL, name, key, (draft) => {
      const edited = withAccessLogs(draft, logs, outboundTexts(context, service), socket === undefined ? undefined : KUMA_DP_SOCKET, false);
      if (!edited) return undefined;
      Object.assign(draft, edited.listener);
      return edited.set;
    });
    report(logs);
  }
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
 * The listener with the logs appended to every HttpConnectionManager and tcp_proxy (Kuma's
 * AccessLogs), and the fields set; undefined when no backend gave a log.
 */
function withAccessLogs(
  listener: ProtoJson,
  logs: readonly ListenerLogs[],
  text: Interpolated,
  socket: LogText | undefined,
  sni: boolean,
): { listener: ProtoJson; set: FieldsSet } | undefined {
  let changed = listener;
  const set: FieldsSet = [];
  for (const chain of filterChains(listener)) {
    const filters = chain.filters.map((filter, index) => {
      if (filter.name !== HTTP_CONNECTION_MANAGER_FILTER && filter.name !== TCP_PROXY_FILTER) return filter;
      const format = defaultFormat(filter.name === HTTP_CONNECTION_MANAGER_FILTER);
      const config = filter.typed_config as ProtoJson;
      const existing = (config.access_log ?? []) as ProtoJson[];
      const added: ProtoJson[] = [];
      for (const { backends, filter: cel, origins } of logs) {
        for (const backend of backends) {
          const log = accessLog(backend, format, text, socket, cel);
          if (!log) continue;
          set.push({ path: `${chain.path}[${index}].typed_config.access_log[${existing.length + added.length}]`, origins });
          added.push(log);
        }
      }
      return added.length === 0 ? filter : { ...filter, typed_config: { ...config, access_log: [...existing, ...added] } };
    });
    changed = withChainFilters(changed, chain.chain, filters);
  }
  if (set.length === 0) return undefined;
  // An SNI condition reads the requested server name, which only the TLS inspector finds out.
  const listenerFilters = (changed.listener_filters ?? []) as ProtoJson[];
  if (sni && !listenerFilters.some((filter) => filter.name === TLS_INSPECTOR)) {
    changed = { ...changed, listener_filters: [...listenerFilters, { name: TLS_INSPECTOR, typed_config: { '@type': TLS_INSPECTOR_TYPE_URL } }] };
  }
  return { listener: changed, set };
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
