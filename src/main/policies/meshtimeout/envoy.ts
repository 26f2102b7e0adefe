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
import type { Draft } from '../core/draft.js';
import { child, httpConnectionManagers, inlineRouteNames, inlineRoutes, tcpProxies, type DraftPart } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import { serviceClusterNames } from '../core/outbound-targets.js';
import { destinationTags, inboundSides, outboundSides } from '../core/proxy-sides.js';
import { catchAllInboundRule, ruleFor, type InboundRule } from '../core/rules.js';
import {
  CALLER_RULE_NEEDS_MTLS,
  SNI_CALLER_RULE_NOT_ENCODABLE,
  SNI_RULES_ON_ZONE_PROXIES,
  callerRoutes,
  callersHaveIdentities,
  withCallerRoutes,
  withClientCertUris,
  type CallerRoute,
} from '../core/caller-routes.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { reportUnapplied } from '../core/unapplied.js';
import { resolveMeshTimeoutConf, setFields, type MeshTimeoutPolicyConf } from './api.js';

type Conf = MeshTimeoutPolicyConf;

/** A rule's conf and the items merged into it (an outbound Rule or an InboundRule). */
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
  const identities = callersHaveIdentities(context.mesh);
  for (const side of inboundSides(proxy)) {
    const inboundRules = rules.inbound.get(side.key) ?? [];
    reportMatchedRules(input, inboundRules, identities);
    const catchAll = catchAllInboundRule(inboundRules);
    const callers = identities ? callerRoutes('MeshTimeout', inboundRules, hasRouteTimeouts) : [];
    if (catchAll !== undefined || callers.length > 0) {
      // Kuma's ListenerConfigurer: the catch-all's timeouts, then the callers' copies of the routes it configured.
      putEdited(resources, LISTENER_TYPE_URL, side.listener, ['MeshTimeout inbound listener', keyOf(catchAll), ...callers.map(keyOf)], (listener) =>
        withCallerCopies(listener, catchAll === undefined ? [] : configureFilterChains(listener, catchAll), callers),
      );
    }
    if (catchAll !== undefined) {
      putEdited(resources, CLUSTER_TYPE_URL, side.cluster, ['MeshTimeout cluster', side.protocol, keyOf(catchAll)], (cluster) =>
        configureCluster(cluster, side.protocol, catchAll),
      );
    }
  }
  const clusters = serviceClusterNames(resources);
  for (const side of outboundSides(proxy, context)) {
    const serviceRule = ruleFor(rules.to, destinationTags(side.service));
    const listener = resources.get(LISTENER_TYPE_URL, side.listener);
    // A MeshHTTPRoute's routes take their own rule (by the route's name), the others the service's.
    const routeRules = (listener === undefined ? [] : inlineRouteNames(listener)).map(
      (name) => ruleFor(rules.to, destinationTags(side.service, name)) ?? serviceRule,
    );
    if (serviceRule !== undefined || routeRules.some((rule) => rule !== undefined)) {
      const key = ['MeshTimeout outbound listener', side.protocol, keyOf(serviceRule), ...routeRules.map(keyOf)];
      putEdited(resources, LISTENER_TYPE_URL, side.listener, key, (draft) => configureOutboundListener(draft, side.protocol, serviceRule, routeRules));
    }
    if (serviceRule === undefined) continue;
    for (const name of clusters.get(side.service) ?? []) {
      putEdited(resources, CLUSTER_TYPE_URL, name, ['MeshTimeout cluster', side.protocol, keyOf(serviceRule)], (cluster) =>
        configureCluster(cluster, side.protocol, serviceRule),
      );
    }
  }
}

/** The timeouts Kuma gives the callers a rule matches, on their copy of each route (matchedRouteTimeoutRules). */
const ROUTE_TIMEOUT_FIELDS = ['http.requestTimeout', 'http.streamIdleTimeout'];

function hasRouteTimeouts(conf: Conf): boolean {
  return conf.http?.requestTimeout !== undefined || conf.http?.streamIdleTimeout !== undefined;
}

export const NOT_PER_CALLER =
  "Kuma gives the callers a rule matches only their route timeouts (http.requestTimeout, http.streamIdleTimeout); this one is the connection's or the inbound cluster's, the same for every caller";

/** The fields of matched rules that do not apply, and why. */
function reportMatchedRules(input: PluginInput<Conf>, rules: readonly InboundRule<Conf>[], identities: boolean): void {
  for (const rule of rules) {
    if (rule.match === undefined) continue;
    const routeReason = rule.match.sni ? SNI_CALLER_RULE_NOT_ENCODABLE : identities ? undefined : CALLER_RULE_NEEDS_MTLS;
    for (const field of setFields(rule.conf)) {
      const reason = rule.match.spiffeID === undefined ? SNI_RULES_ON_ZONE_PROXIES : ROUTE_TIMEOUT_FIELDS.includes(field) ? routeReason : NOT_PER_CALLER;
      if (reason) reportUnapplied(input, rule.origins, field, reason);
    }
  }
}

/** The listener's inline routes, each by its draft object, at its path. */
function routePaths(listener: Draft): Map<object, string> {
  return new Map(httpConnectionManagers(listener).flatMap((hcm) => inlineRoutes(hcm).map((route) => [route.value, route.path] as const)));
}

/**
 * Adds the callers' route copies to a listener the catch-all has configured (`set`), whose fields
 * on routes move with their routes; undefined when nothing was set or copied.
 */
function withCallerCopies(listener: Draft, set: FieldsSet, callers: readonly CallerRoute<Conf>[]): FieldsSet | undefined {
  if (callers.length === 0) return set.length > 0 ? set : undefined;
  const before = routePaths(listener);
  const copied = configureCallerRoutes(listener, callers);
  const moved = new Map([...routePaths(listener)].flatMap(([route, path]) => (before.has(route) ? [[before.get(route)!, path] as const] : [])));
  const movedPath = (path: string) => {
    const route = [...moved.keys()].find((old) => path.startsWith(`${old}.`));
    return route === undefined ? path : `${moved.get(route)}${path.slice(route.length)}`;
  };
  const all = [...set.map((field) => ({ ...field, path: movedPath(field.path) })), ...copied];
  return all.length > 0 ? all : undefined;
}

/** Kuma's ConfigureMatchedRoutes: before each inbound route, its copies for the callers, with their route timeouts. */
function configureCallerRoutes(listener: Draft, callers: readonly CallerRoute<Conf>[]): FieldsSet {
  const copies = new Map<object, CallerRoute<Conf>>();
  for (const hcm of httpConnectionManagers(listener)) {
    const routeConfig = hcm.value.route_config as Draft | undefined;
    for (const virtualHost of (routeConfig?.virtual_hosts ?? []) as Draft[]) {
      virtualHost.routes = withCallerRoutes(
        (virtualHost.routes ?? []) as Draft[],
        callers,
        (copy, caller) => {
          // Only what the callers' rules set: the rest stays as the catch-all left the route (ConfigureMatchedRouteAction).
          const { requestTimeout, streamIdleTimeout } = caller.conf.http ?? {};
          const { timeout, idle_timeout } = meshTimeoutRouteActionFields(resolveMeshTimeoutConf(caller.conf));
          const action = copy.route as Draft;
          return { ...copy, route: { ...action, ...(requestTimeout !== undefined && { timeout }), ...(streamIdleTimeout !== undefined && { idle_timeout }) } };
        },
        (copy, caller) => copies.set(copy, caller),
      );
    }
    Object.assign(hcm.value, withClientCertUris(hcm.value));
  }
  const set: FieldsSet = [];
  for (const hcm of httpConnectionManagers(listener)) {
    for (const route of inlineRoutes(hcm)) {
      const caller = copies.get(route.value);
      if (caller === undefined) continue;
      const http = caller.conf.http ?? {};
      if (http.requestTimeout !== undefined) set.push({ path: `${route.path}.route.timeout`, origins: caller.origins });
      if (http.streamIdleTimeout !== undefined) set.push({ path: `${route.path}.route.idle_timeout`, origins: caller.origins });
    }
  }
  return set;
}

function origins(applied: Applied, isSet: boolean): readonly PolicyOrigin[] {
  return isSet ? applied.origins : [];
}

/** Kuma's DeprecatedListenerConfigurer: tcp_proxy for tcp destinations, else the routes and the HTTP connection manager. */
function configureOutboundListener(
  listener: Draft,
  protocol: Protocol,
  serviceRule: Applied | undefined,
  routeRules: readonly (Applied | undefined)[],
): FieldsSet {
  const set: FieldsSet = [];
  if (protocol === 'tcp') {
    if (serviceRule) set.push(...configureTcpProxies(listener, serviceRule));
    return set;
  }
  let index = 0;
  for (const hcm of httpConnectionManagers(listener)) {
    for (const route of inlineRoutes(hcm)) {
      const rule = routeRules[index++];
      if (rule) set.push(...configureRouteAction(route, rule));
    }
    if (serviceRule) set.push(...configureHttpConnectionManager(hcm, serviceRule));
  }
  return set;
}

/** Kuma's ConfigureFilterChain: every route, HTTP connection manager and tcp_proxy of an inbound listener. */
function configureFilterChains(listener: Draft, rule: Applied): FieldsSet {
  const set: FieldsSet = [];
  for (const hcm of httpConnectionManagers(listener)) {
    for (const route of inlineRoutes(hcm)) set.push(...configureRouteAction(route, rule));
    set.push(...configureHttpConnectionManager(hcm, rule));
  }
  return [...set, ...configureTcpProxies(listener, rule)];
}

/** Kuma's ConfigureRouteAction: request timeout, and a stream idle timeout that an earlier value survives unless the rule sets one. */
function configureRouteAction(route: DraftPart, rule: Applied): FieldsSet {
  const action = route.value.route as Draft | undefined;
  if (action === undefined) return [];
  const resolved = meshTimeoutRouteActionFields(resolveMeshTimeoutConf(rule.conf));
  const http = rule.conf.http ?? {};
  action.timeout = resolved.timeout;
  if (http.streamIdleTimeout !== undefined || action.idle_timeout === undefined) action.idle_timeout = resolved.idle_timeout;
  return [
    { path: `${route.path}.route.timeout`, origins: origins(rule, http.requestTimeout !== undefined) },
    { path: `${route.path}.route.idle_timeout`, origins: origins(rule, http.streamIdleTimeout !== undefined) },
  ];
}

/** The request headers timeout; the connection idle timeout is 0 here because MeshTimeout puts it on the cluster. */
function configureHttpConnectionManager(hcm: DraftPart, rule: Applied): FieldsSet {
  const fields = meshTimeoutHttpConnectionManagerFields(resolveMeshTimeoutConf(rule.conf)) as {
    common_http_protocol_options: Draft;
    request_headers_timeout: string;
  };
  Object.assign(child(hcm.value, 'common_http_protocol_options'), fields.common_http_protocol_options);
  hcm.value.request_headers_timeout = fields.request_headers_timeout;
  return [{ path: `${hcm.path}.request_headers_timeout`, origins: origins(rule, rule.conf.http?.requestHeadersTimeout !== undefined) }];
}

function configureTcpProxies(listener: Draft, rule: Applied): FieldsSet {
  return tcpProxies(listener).map((tcpProxy) => {
    Object.assign(tcpProxy.value, meshTimeoutTcpProxyFields(resolveMeshTimeoutConf(rule.conf)));
    return { path: `${tcpProxy.path}.idle_timeout`, origins: origins(rule, rule.conf.idleTimeout !== undefined) };
  });
}

/** Kuma's ClusterConfigurer: the connect timeout, and for http and http2 the upstream idle timeout and durations. */
function configureCluster(cluster: Draft, protocol: Protocol, rule: Applied): FieldsSet {
  const { conf } = rule;
  const { connect_timeout, common_http_protocol_options: common } = meshTimeoutClusterFields(resolveMeshTimeoutConf(conf), protocol);
  cluster.connect_timeout = connect_timeout;
  const set: FieldsSet = [{ path: 'connect_timeout', origins: origins(rule, conf.connectionTimeout !== undefined) }];
  if (common === undefined) return set;
  const options = child(child(cluster, 'typed_extension_protocol_options'), HTTP_PROTOCOL_OPTIONS);
  options['@type'] = HTTP_PROTOCOL_OPTIONS_TYPE_URL;
  Object.assign(child(options, 'common_http_protocol_options'), common);
  const path = `${keyPath('typed_extension_protocol_options', HTTP_PROTOCOL_OPTIONS)}.common_http_protocol_options`;
  return [
    ...set,
    { path: `${path}.idle_timeout`, origins: origins(rule, conf.idleTimeout !== undefined) },
    { path: `${path}.max_stream_duration`, origins: origins(rule, conf.http?.maxStreamDuration !== undefined) },
    { path: `${path}.max_connection_duration`, origins: origins(rule, conf.http?.maxConnectionDuration !== undefined) },
  ];
}
