import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { Protocol } from '../../../shared/resources.js';
import { keyPath } from '../../resources/field-path.js';
import {
  meshTimeoutClusterFields,
  meshTimeoutHttpConnectionManagerFields,
  meshTimeoutRouteActionFields,
  meshTimeoutTcpProxyFields,
} from '../../xds/generate/defaults/mesh-timeout-defaults.js';
import { HTTP_PROTOCOL_OPTIONS, HTTP_PROTOCOL_OPTIONS_TYPE_URL } from '../../xds/generate/extension-types.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { EnvoyResources } from '../core/envoy-resources.js';
import { child, draftOf, httpConnectionManagers, inlineRoutes, tcpProxies, type Draft, type DraftPart } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import { destinationTags, inboundSides, outboundSides, serviceClusters } from '../core/proxy-sides.js';
import { catchAllInboundRule, ruleFor } from '../core/rules.js';
import { reportUnapplied } from '../core/unapplied.js';
import { resolveMeshTimeoutConf, setFields, type MeshTimeoutPolicyConf } from './api.js';

type Conf = MeshTimeoutPolicyConf;
type Attributions = { path: string; origins: readonly PolicyOrigin[] }[];

/** The fields a rule gives a value (an unset one takes Kuma's default, which the generators already wrote). */
interface Applied {
  conf: Conf;
  origins: readonly PolicyOrigin[];
}

/**
 * Kuma's MeshTimeout plugin (meshtimeout/plugin/v1alpha1/plugin.go, plugin/xds/configurer.go) on
 * a sidecar's inbound and kuma.io/service outbound resources. The generators already wrote Kuma's
 * defaults everywhere, which is what the plugin writes without a rule, so only rules change anything.
 */
export function applyMeshTimeoutToEnvoy(input: PluginInput<Conf>): void {
  const { proxy, context, rules, resources } = input;
  for (const side of inboundSides(proxy)) {
    const inboundRules = rules.inbound.get(side.key) ?? [];
    for (const rule of inboundRules) {
      if (rule.match === undefined) continue;
      for (const field of setFields(rule.conf)) {
        reportUnapplied(input, rule.origins, field, 'a rule matching callers by spiffeID or SNI needs mTLS, which meshdesk does not issue');
      }
    }
    const catchAll = catchAllInboundRule(inboundRules);
    if (catchAll === undefined) continue;
    editListener(resources, side.listener, (listener, set) => configureFilterChains(listener, catchAll, set));
    editCluster(resources, side.cluster, side.protocol, catchAll);
  }
  for (const side of outboundSides(proxy, context)) {
    const serviceRule = ruleFor(rules.to, destinationTags(side.service));
    editListener(resources, side.listener, (listener, set) => {
      if (side.protocol === 'tcp') {
        if (serviceRule) configureTcpProxies(listener, serviceRule, set);
        return;
      }
      for (const hcm of httpConnectionManagers(listener)) {
        for (const route of inlineRoutes(hcm)) {
          const routeRule = ruleFor(rules.to, destinationTags(side.service, route.value.name as string | undefined)) ?? serviceRule;
          if (routeRule) configureRouteAction(route, routeRule, set);
        }
        if (serviceRule) configureHttpConnectionManager(hcm, serviceRule, set);
      }
    });
    if (serviceRule === undefined) continue;
    for (const { name } of serviceClusters(resources, side.service)) editCluster(resources, name, side.protocol, serviceRule);
  }
}

function origins(applied: Applied, isSet: boolean): readonly PolicyOrigin[] {
  return isSet ? applied.origins : [];
}

function editListener(resources: EnvoyResources, name: string, edit: (listener: Draft, set: Attributions) => void): void {
  const listener = resources.get(LISTENER_TYPE_URL, name);
  if (listener === undefined) return;
  const draft = draftOf(listener);
  const set: Attributions = [];
  edit(draft, set);
  // Nothing configured (no rule for this destination): the generated listener stays shared.
  if (set.length > 0) resources.put(LISTENER_TYPE_URL, name, draft, set);
}

/** Kuma's ConfigureFilterChain: every route, HTTP connection manager and tcp_proxy of an inbound listener. */
function configureFilterChains(listener: Draft, rule: Applied, set: Attributions): void {
  for (const hcm of httpConnectionManagers(listener)) {
    for (const route of inlineRoutes(hcm)) configureRouteAction(route, rule, set);
    configureHttpConnectionManager(hcm, rule, set);
  }
  configureTcpProxies(listener, rule, set);
}

/** Kuma's ConfigureRouteAction: request timeout, and a stream idle timeout that an earlier value survives unless the rule sets one. */
function configureRouteAction(route: DraftPart, rule: Applied, set: Attributions): void {
  const action = route.value.route as Draft | undefined;
  if (action === undefined) return;
  const resolved = meshTimeoutRouteActionFields(resolveMeshTimeoutConf(rule.conf));
  const http = rule.conf.http ?? {};
  action.timeout = resolved.timeout;
  if (http.streamIdleTimeout !== undefined || action.idle_timeout === undefined) action.idle_timeout = resolved.idle_timeout;
  set.push(
    { path: `${route.path}.route.timeout`, origins: origins(rule, http.requestTimeout !== undefined) },
    { path: `${route.path}.route.idle_timeout`, origins: origins(rule, http.streamIdleTimeout !== undefined) },
  );
}

/** The request headers timeout; the connection idle timeout is 0 here because MeshTimeout puts it on the cluster. */
function configureHttpConnectionManager(hcm: DraftPart, rule: Applied, set: Attributions): void {
  const fields = meshTimeoutHttpConnectionManagerFields(resolveMeshTimeoutConf(rule.conf)) as {
    common_http_protocol_options: Draft;
    request_headers_timeout: string;
  };
  Object.assign(child(hcm.value, 'common_http_protocol_options'), fields.common_http_protocol_options);
  hcm.value.request_headers_timeout = fields.request_headers_timeout;
  set.push({ path: `${hcm.path}.request_headers_timeout`, origins: origins(rule, rule.conf.http?.requestHeadersTimeout !== undefined) });
}

function configureTcpProxies(listener: Draft, rule: Applied, set: Attributions): void {
  for (const tcpProxy of tcpProxies(listener)) {
    Object.assign(tcpProxy.value, meshTimeoutTcpProxyFields(resolveMeshTimeoutConf(rule.conf)));
    set.push({ path: `${tcpProxy.path}.idle_timeout`, origins: origins(rule, rule.conf.idleTimeout !== undefined) });
  }
}

/** Kuma's ClusterConfigurer: the connect timeout, and for http and http2 the upstream idle timeout and durations. */
function editCluster(resources: EnvoyResources, name: string, protocol: Protocol, rule: Applied): void {
  const cluster = resources.get(CLUSTER_TYPE_URL, name);
  if (cluster === undefined) return;
  const draft = draftOf(cluster);
  const { conf } = rule;
  const { connect_timeout, common_http_protocol_options: common } = meshTimeoutClusterFields(resolveMeshTimeoutConf(conf), protocol);
  draft.connect_timeout = connect_timeout;
  const set: Attributions = [{ path: 'connect_timeout', origins: origins(rule, conf.connectionTimeout !== undefined) }];
  if (common !== undefined) {
    const options = child(child(draft, 'typed_extension_protocol_options'), HTTP_PROTOCOL_OPTIONS);
    options['@type'] = HTTP_PROTOCOL_OPTIONS_TYPE_URL;
    Object.assign(child(options, 'common_http_protocol_options'), common);
    const path = `${keyPath('typed_extension_protocol_options', HTTP_PROTOCOL_OPTIONS)}.common_http_protocol_options`;
    set.push(
      { path: `${path}.idle_timeout`, origins: origins(rule, conf.idleTimeout !== undefined) },
      { path: `${path}.max_stream_duration`, origins: origins(rule, conf.http?.maxStreamDuration !== undefined) },
      { path: `${path}.max_connection_duration`, origins: origins(rule, conf.http?.maxConnectionDuration !== undefined) },
    );
  }
  resources.put(CLUSTER_TYPE_URL, name, draft, set);
}
