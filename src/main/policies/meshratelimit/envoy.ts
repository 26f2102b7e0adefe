// MeshRateLimit on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go applyToInbounds and
// plugin/xds/configurer.go): the catch-all rule's limits on every route and chain of the inbound
// listener, and for callers a rule matches by SPIFFE ID their own copy of each route (caller-routes.ts).
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG } from '../../../shared/resources.js';
import { inboundListenerName } from '../../xds/generate/names.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { filterChains, httpConnectionManagerIndex, insertHttpFiltersBeforeRouter, withChainFilters } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { catchAllInboundRule, inboundKey, type InboundRule } from '../core/rules.js';
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
import type { MeshRateLimitConf } from './api.js';
import {
  HTTP_LOCAL_RATE_LIMIT_FILTER,
  STATUS_NOT_IN_ENVOY,
  envoyAcceptsStatus,
  httpRateLimitFilter,
  routeRateLimit,
  tcpRateLimitFilter,
} from './rate-limit.js';

/**
 * What the plugin wrote, by object (a filter, a route): chain filters and routes move when others are
 * put before them, so their paths are read once the listener is done. `field` is below the object.
 */
type Marks = Map<ProtoJson, { origins: readonly PolicyOrigin[]; field?: string }>;

export const MATCHED_TCP_LIMIT_NOT_APPLIED = "Kuma limits a sidecar's TCP connections for all callers only: a rule matching callers limits no TCP connection";

type Conf = MeshRateLimitConf;

export function applyMeshRateLimitToEnvoy(input: PluginInput<Conf>): void {
  const { proxy, context, rules, resources } = input;
  const identities = callersHaveIdentities(context.mesh);
  const { networking } = proxy.dataplane.spec;
  for (const inbound of networking.inbound ?? []) {
    if (inbound.tags?.[SERVICE_TAG] === undefined) continue;
    const address = inbound.address ?? networking.address;
    const name = inboundListenerName(address, inbound.port);
    const listener = resources.get(LISTENER_TYPE_URL, name);
    const inboundRules = rules.inbound.get(inboundKey(address, inbound.port)) ?? [];
    if (!listener || inboundRules.length === 0) continue;
    for (const rule of inboundRules) {
      const status = rule.conf.local?.http?.onRateLimit?.status;
      if (status !== undefined && status !== 0 && !envoyAcceptsStatus(status)) reportUnapplied(input, rule.origins, 'default.local.http.onRateLimit.status', STATUS_NOT_IN_ENVOY);
    }
    for (const rule of inboundRules) {
      if (!rule.match) continue;
      if (rule.conf.local?.tcp) reportUnapplied(input, rule.origins, 'default.local.tcp', MATCHED_TCP_LIMIT_NOT_APPLIED);
      const unapplied = !rule.match.spiffeID ? SNI_RULES_ON_ZONE_PROXIES : rule.match.sni ? SNI_CALLER_RULE_NOT_ENCODABLE : identities ? undefined : CALLER_RULE_NEEDS_MTLS;
      if (rule.conf.local?.http && unapplied) reportUnapplied(input, rule.origins, 'default.local.http', unapplied);
    }
    const catchAll = catchAllInboundRule(inboundRules);
    // Kuma's matched routes: rules with an HTTP conf, over the catch-all's HTTP conf.
    const callers = identities
      ? callerRoutes('MeshRateLimit', inboundRules, (conf) => conf.local?.http !== undefined, catchAll?.conf.local?.http ? catchAll : undefined)
      : [];
    const copies = callers.some((caller) => routeRateLimit(caller.conf.local?.http)) || Boolean(catchAll && routeRateLimit(catchAll.conf.local?.http)) ? callers : [];
    if (!catchAll && copies.length === 0) continue;
    let changed = listener;
    const marks: Marks = new Map();
    for (const chain of filterChains(listener)) {
      const filters = catchAll ? withCatchAll([...chain.filters], catchAll, marks) : [...chain.filters];
      changed = withChainFilters(changed, chain.chain, withCallerCopies(filters, copies, marks));
    }
    if (marks.size > 0) resources.put(LISTENER_TYPE_URL, name, changed, markedPaths(changed, marks));
  }
}

/** Kuma's ConfigureFilterChain: the HTTP limit on every route (the HCM filter an empty shell), the TCP limit first in the chain. */
function withCatchAll(filters: ProtoJson[], rule: InboundRule<MeshRateLimitConf>, marks: Marks): ProtoJson[] {
  let result = filters;
  const rateLimit = routeRateLimit(rule.conf.local?.http);
  const at = httpConnectionManagerIndex(result);
  const hcm = at < 0 ? undefined : (result[at]!.typed_config as ProtoJson);
  // Routes fetched over RDS are not in the listener; Kuma leaves them alone too.
  if (rateLimit && hcm?.route_config) {
    const routeConfig = hcm.route_config as ProtoJson;
    const virtualHosts = ((routeConfig.virtual_hosts ?? []) as ProtoJson[]).map((virtualHost) => ({
      ...virtualHost,
      routes: ((virtualHost.routes ?? []) as ProtoJson[]).map((route) => {
        const perFilter = (route.typed_per_filter_config ?? {}) as ProtoJson;
        if (perFilter[HTTP_LOCAL_RATE_LIMIT_FILTER]) return route;
        const limited = { ...route, typed_per_filter_config: { ...perFilter, [HTTP_LOCAL_RATE_LIMIT_FILTER]: rateLimit } };
        marks.set(limited, { origins: rule.origins, field: `.typed_per_filter_config["${HTTP_LOCAL_RATE_LIMIT_FILTER}"]` });
        return limited;
      }),
    }));
    const withFilter = upsertHttpFilter({ ...hcm, route_config: { ...routeConfig, virtual_hosts: virtualHosts } }, rule.origins, marks);
    result = result.map((filter, index) => (index === at ? { ...filter, typed_config: withFilter } : filter));
  }
  const tcp = tcpRateLimitFilter(rule.conf.local?.tcp);
  if (tcp) result = upsertNetworkFilter(result, tcp, rule.origins, marks);
  return result;
}

/** Kuma's ConfigureMatchedRoutes: each route's copies for the callers, each with its callers' limit (or none). */
function withCallerCopies(filters: ProtoJson[], callers: readonly CallerRoute<Conf>[], marks: Marks): ProtoJson[] {
  const at = httpConnectionManagerIndex(filters);
  const hcm = at < 0 ? undefined : (filters[at]!.typed_config as ProtoJson);
  if (callers.length === 0 || !hcm?.route_config) return filters;
  const routeConfig = hcm.route_config as ProtoJson;
  const virtualHosts = ((routeConfig.virtual_hosts ?? []) as ProtoJson[]).map((virtualHost) => ({
    ...virtualHost,
    routes: withCallerRoutes(
      (virtualHost.routes ?? []) as ProtoJson[],
      callers,
      (copy, caller) => {
        // The copy carries its callers' limit; none, when their conf disables it.
        const rateLimit = routeRateLimit(caller.conf.local?.http);
        const others = Object.entries((copy.typed_per_filter_config ?? {}) as ProtoJson).filter(([name]) => name !== HTTP_LOCAL_RATE_LIMIT_FILTER);
        const perFilter = Object.fromEntries(rateLimit ? [...others, [HTTP_LOCAL_RATE_LIMIT_FILTER, rateLimit]] : others);
        const route = Object.fromEntries(Object.entries(copy).filter(([key]) => key !== 'typed_per_filter_config'));
        return Object.keys(perFilter).length > 0 ? { ...route, typed_per_filter_config: perFilter } : route;
      },
      (copy, caller) => marks.set(copy, { origins: caller.origins }),
    ),
  }));
  let changed = withClientCertUris({ ...hcm, route_config: { ...routeConfig, virtual_hosts: virtualHosts } });
  const limited = callers.filter((caller) => routeRateLimit(caller.conf.local?.http));
  const hasShell = ((changed.http_filters ?? []) as ProtoJson[]).some((filter) => filter.name === HTTP_LOCAL_RATE_LIMIT_FILTER);
  if (limited.length > 0 && !hasShell) changed = upsertHttpFilter(changed, limited.flatMap((caller) => caller.origins), marks);
  return filters.map((filter, index) => (index === at ? { ...filter, typed_config: changed } : filter));
}

/** The HCM with the rate limit shell filter, replacing one of that name or before the router. */
function upsertHttpFilter(hcm: ProtoJson, origins: readonly PolicyOrigin[], marks: Marks): ProtoJson {
  const filters = (hcm.http_filters ?? []) as ProtoJson[];
  const filter = httpRateLimitFilter();
  marks.set(filter, { origins });
  const existing = filters.findIndex((each) => each.name === HTTP_LOCAL_RATE_LIMIT_FILTER);
  if (existing >= 0) return { ...hcm, http_filters: filters.map((each, index) => (index === existing ? filter : each)) };
  return insertHttpFiltersBeforeRouter(hcm, [filter]).hcm;
}

/** A network filter replacing one of its name, or first in the chain. */
function upsertNetworkFilter(filters: ProtoJson[], added: ProtoJson, origins: readonly PolicyOrigin[], marks: Marks): ProtoJson[] {
  marks.set(added, { origins });
  const existing = filters.findIndex((filter) => filter.name === added.name);
  if (existing >= 0) return filters.map((filter, index) => (index === existing ? added : filter));
  return [added, ...filters];
}

/** Where each marked object ended up in the finished listener. */
function markedPaths(listener: ProtoJson, marks: Marks): { path: string; origins: readonly PolicyOrigin[] }[] {
  const found: { path: string; origins: readonly PolicyOrigin[] }[] = [];
  const visit = (object: ProtoJson, path: string) => {
    const mark = marks.get(object);
    if (mark) found.push({ path: `${path}${mark.field ?? ''}`, origins: mark.origins });
  };
  for (const chain of filterChains(listener)) {
    chain.filters.forEach((filter, index) => {
      const path = `${chain.path}[${index}]`;
      visit(filter, path);
      if (index !== httpConnectionManagerIndex(chain.filters)) return;
      const hcm = filter.typed_config as ProtoJson;
      ((hcm.http_filters ?? []) as ProtoJson[]).forEach((each, at) => visit(each, `${path}.typed_config.http_filters[${at}]`));
      const virtualHosts = ((hcm.route_config as ProtoJson | undefined)?.virtual_hosts ?? []) as ProtoJson[];
      virtualHosts.forEach((host, h) =>
        ((host.routes ?? []) as ProtoJson[]).forEach((route, r) => visit(route, `${path}.typed_config.route_config.virtual_hosts[${h}].routes[${r}]`)),
      );
    });
  }
  return found;
}
