// MeshRateLimit on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go applyToInbounds and
// plugin/xds/configurer.go): the catch-all rule's limits on every route and chain of the inbound
// listener. Rules matching a caller's SPIFFE ID are reported instead (see MATCHED_RULES_UNSUPPORTED).
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG } from '../../../shared/resources.js';
import { inboundListenerName } from '../../xds/generate/names.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { filterChains, httpConnectionManagerIndex, insertHttpFiltersBeforeRouter, withChainFilters } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { catchAllInboundRule, inboundKey, type InboundRule } from '../core/rules.js';
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

/**
 * Kuma gives the callers a spiffeID rule names their own copy of each route, reached through a
 * filter-state match (RouteMatch.filter_state, set by set_filter_state's on_downstream_tls_handshake).
 * Neither field is in the Envoy API meshdesk encodes with (the protos @grpc/grpc-js-xds ships), and
 * without mTLS no caller has a SPIFFE ID: such a rule is reported, the catch-all limit still applies.
 */
const MATCHED_RULES_UNSUPPORTED =
  "a limit for callers matched by SPIFFE ID needs RouteMatch.filter_state and set_filter_state's on_downstream_tls_handshake, which meshdesk's Envoy API does not have; the catch-all limit applies to them";
const SNI_RULES_ON_ZONE_PROXIES = 'Kuma applies SNI-matched rate limits on zone proxies only, not on a sidecar inbound';

export function applyMeshRateLimitToEnvoy(input: PluginInput<MeshRateLimitConf>): void {
  const { proxy, rules, resources } = input;
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
      if (rule.match && routeRateLimit(rule.conf.local?.http)) {
        reportUnapplied(input, rule.origins, 'default.local.http', rule.match.spiffeID ? MATCHED_RULES_UNSUPPORTED : SNI_RULES_ON_ZONE_PROXIES);
      }
    }
    const catchAll = catchAllInboundRule(inboundRules);
    if (!catchAll) continue;
    let changed = listener;
    const marks: Marks = new Map();
    for (const chain of filterChains(listener)) changed = withChainFilters(changed, chain.chain, withCatchAll([...chain.filters], catchAll, marks));
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
