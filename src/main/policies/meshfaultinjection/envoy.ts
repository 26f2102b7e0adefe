// MeshFaultInjection on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go applyToInbounds and
// plugin/xds/{configurer,legacy_configurer}.go): fault filters on the HTTP inbound listeners.
import { SERVICE_TAG } from '../../../shared/resources.js';
import { protocolFromTags } from '../../xds/context/build-mesh-context.js';
import { policiesOf } from '../../xds/context/mesh-context.js';
import { KUMA_TAGS_HEADER } from '../../xds/generate/inbound-proxy-generator.js';
import { inboundListenerName, outboundListenerName } from '../../xds/generate/names.js';
import { DEFAULT_OUTBOUND_ADDRESS } from '../../xds/generate/outbound-proxy-generator.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { filterChains, httpConnectionManagerIndex, insertHttpFiltersBeforeRouter, withChainFilters, withHttpConnectionManager } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import { derived } from '../core/derived.js';
import { ProxyBoundValue } from '../core/proxy-bound.js';
import type { FieldsSet } from '../core/shared-edits.js';
import { canonical } from '../../xds/context/carried-memo.js';
import { memoizedForContext } from '../../xds/generate/context-memo.js';
import { policyKri, type PolicyLookup } from '../core/policy-kri.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { inboundKey, type InboundRule, type Rule } from '../core/rules.js';
import type { MeshFaultInjectionConf } from './api.js';
import { callerHeaderMatchers, callerTags, serializeCallerTags } from './caller-tags.js';
import { meshFaultInjectionDescriptor } from './descriptor.js';
import { ABORT_STATUS_OUT_OF_ENVOY_RANGE, FAULT_FILTER, abortApplies, httpFault } from './fault.js';
import { filterUnlessMatched } from './skip-filter-matcher.js';

/** An HTTP filter to add, with the items its fault came from. */
interface FaultFilter {
  filter: ProtoJson;
  origins: readonly PolicyOrigin[];
}

export function applyMeshFaultInjectionToEnvoy(input: PluginInput<MeshFaultInjectionConf>): void {
  const { proxy, rules, resources } = input;
  sendCallerTags(input);
  const { networking } = proxy.dataplane.spec;
  for (const inbound of networking.inbound ?? []) {
    const tags = inbound.tags ?? {};
    if (tags[SERVICE_TAG] === undefined || protocolFromTags(tags) === 'tcp') continue;
    const address = inbound.address ?? networking.address;
    const name = inboundListenerName(address, inbound.port);
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (!listener) continue;
    const key = inboundKey(address, inbound.port);
    const inboundRules = rules.inbound.get(key) ?? [];
    // As Kuma: the `rules` form when the inbound has any, else the legacy `from` rules.
    const applying = inboundRules.length > 0 ? inboundRules : (rules.from.get(key) ?? []);
    for (const rule of applying) {
      (rule.conf.http ?? []).forEach(({ abort }, index) => {
        if (abort && !abortApplies(abort)) reportUnapplied(input, rule.origins, `default.http[${index}].abort`, ABORT_STATUS_OUT_OF_ENVOY_RANGE);
      });
    }
    const filters = inboundRules.length > 0 ? matchedFilters(inboundRules, (type, policy) => resources.policyNamed(type, policy)) : legacyFilters(rules.from.get(key) ?? []);
    if (filters.length === 0) continue;
    resources.put(LISTENER_TYPE_URL, name, ...withFaultFilters(listener, filters));
  }
}

/** The proxy's tags, written last (see ProxyBoundValue): every proxy shares the edited outbound listeners. */
const CALLER_TAGS = new ProxyBoundValue("the proxy's tags (x-kuma-tags)", (proxy) => serializeCallerTags(callerTags(proxy.dataplane.spec)));

/**
 * Kuma's IsXKumaTagsUsed: while the mesh has a MeshFaultInjection, every sidecar sends its tags in
 * `x-kuma-tags` on its outbound HTTP routes, so that legacy `from` rules at the destination know
 * who calls. Kuma's route generator does it; in meshdesk this policy is the only reason for it.
 */
function sendCallerTags({ proxy, context, resources }: PluginInput<MeshFaultInjectionConf>): void {
  const origins = memoizedForContext(context, 'meshfaultinjection:caller-tags-origins', () =>
    canonical(
      context,
      'meshfaultinjection:caller-tags-origins',
      policiesOf(context, meshFaultInjectionDescriptor.type).map(({ type, meta }): PolicyOrigin => ({ type, mesh: meta.mesh, name: meta.name, item: 'spec' })),
    ),
  );
  if (origins.length === 0 || callerTags(proxy.dataplane.spec).size === 0) return;
  for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
    const name = outboundListenerName(outbound.address ?? DEFAULT_OUTBOUND_ADDRESS, outbound.port);
    const listener = resources.get(LISTENER_TYPE_URL, name);
    if (!listener) continue;
    // Made once per listener object and origins (equal origins are one object, see `canonical`): shared by every proxy.
    const { changed, set } = derived(listener, origins, () => withCallerTags(listener, origins));
    if (set.length > 0) resources.put(LISTENER_TYPE_URL, name, changed, set);
  }
}

/** The listener whose HTTP route configurations send the proxy's tags, and the fields set. */
function withCallerTags(listener: ProtoJson, origins: readonly PolicyOrigin[]): { changed: ProtoJson; set: FieldsSet } {
  const header = { header: { key: KUMA_TAGS_HEADER, value: CALLER_TAGS } };
  let changed = listener;
  const set: FieldsSet = [];
  for (const chain of filterChains(listener)) {
    const at = httpConnectionManagerIndex(chain.filters);
    const hcm = at < 0 ? undefined : (chain.filters[at]!.typed_config as ProtoJson);
    const routeConfig = hcm?.route_config as ProtoJson | undefined;
    if (!hcm || !routeConfig) continue;
    const added = (routeConfig.request_headers_to_add ?? []) as ProtoJson[];
    if (added.some((option) => (option.header as ProtoJson | undefined)?.key === KUMA_TAGS_HEADER)) continue;
    set.push({ path: `${chain.path}[${at}].typed_config.route_config.request_headers_to_add[${added.length}]`, origins });
    const withHeader = { ...hcm, route_config: { ...routeConfig, request_headers_to_add: [...added, header] } };
    changed = withChainFilters(changed, chain.chain, withHttpConnectionManager(chain.filters, withHeader));
  }
  return { changed, set };
}

/** Legacy `from`: each fault of each rule, narrowed to the rule's callers by their `x-kuma-tags`. */
function legacyFilters(rules: readonly Rule<MeshFaultInjectionConf>[]): FaultFilter[] {
  return rules.flatMap((rule) =>
    (rule.conf.http ?? []).map((fault) => ({
      filter: { name: FAULT_FILTER, typed_config: httpFault(fault, callerHeaderMatchers(rule.subset)) },
      origins: rule.origins,
    })),
  );
}

/** `rules`: each fault its own filter, skipped for connections the rule's match does not name; named by the policy's KRI. */
function matchedFilters(rules: readonly InboundRule<MeshFaultInjectionConf>[], policyNamed: PolicyLookup): FaultFilter[] {
  return rules.flatMap((rule) =>
    (rule.conf.http ?? []).map((fault) => ({
      filter: {
        name: policyKri(meshFaultInjectionDescriptor.shortName, rule.origins, policyNamed),
        typed_config: filterUnlessMatched({ name: FAULT_FILTER, typed_config: httpFault(fault) }, rule.match),
      },
      origins: rule.origins,
    })),
  );
}

/** The listener with the filters before the router of every HTTP filter chain, and where each landed. */
function withFaultFilters(listener: ProtoJson, filters: readonly FaultFilter[]): [ProtoJson, { path: string; origins: readonly PolicyOrigin[] }[]] {
  let changed = listener;
  const set: { path: string; origins: readonly PolicyOrigin[] }[] = [];
  for (const chain of filterChains(listener)) {
    const at = httpConnectionManagerIndex(chain.filters);
    if (at < 0) continue;
    const { hcm, index } = insertHttpFiltersBeforeRouter(chain.filters[at]!.typed_config as ProtoJson, filters.map(({ filter }) => filter));
    changed = withChainFilters(changed, chain.chain, withHttpConnectionManager(chain.filters, hcm));
    filters.forEach(({ origins }, offset) => set.push({ path: `${chain.path}[${at}].typed_config.http_filters[${index + offset}]`, origins }));
  }
  return [changed, set];
}
