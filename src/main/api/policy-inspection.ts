// Kuma's policy inspection answers (pkg/api-server/resource_endpoints.go rulesForResource,
// matchingDataplanesForPolicy), built from meshdesk's rules engine.
import type { InspectMeta, InspectRulesResponse, PolicyOrigin } from '../../shared/policy-types.js';
import type { DataplaneResource, Resource } from '../../shared/resources.js';
import { inboundKeyOf } from '../policies/core/matching.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { computeAllProxyRules, computeProxyRules } from '../policies/core/proxy-rules.js';
import type { InboundKey, InboundRule, Rule } from '../policies/core/rules.js';
import type { HttpMatch } from '../policies/meshhttproute/api.js';
import { ruleMatchesHash } from '../policies/meshhttproute/prepare-routes.js';
import type { MeshContext } from '../xds/context/mesh-context.js';

/** Kuma's api_common.Meta of a resource. */
export function metaOf(resource: Resource | PolicyResource): InspectMeta {
  return { type: resource.type, mesh: resource.meta.mesh, name: resource.meta.name, labels: resource.meta.labels };
}

/**
 * `GET /meshes/{mesh}/dataplanes/{name}/_rules` (Kuma's InspectRulesResponse): per policy type that
 * has any rule for the proxy, its `to` rules (subset matchers, merged conf, the policies merged),
 * legacy `from` rules and inbound rules per inbound (by port), and warnings; `httpMatches` names
 * the MeshHTTPRoute matches behind each `__rule-matches-hash__`. meshdesk has no real-resource
 * (`toResourceRules`) nor single-item (`proxyRule`) rules: those stay empty.
 */
export function inspectRules(context: MeshContext, dataplane: DataplaneResource): InspectRulesResponse {
  const exclusive = context.mesh.spec.meshServices?.mode === 'Exclusive';
  const labels = new Map(context.policies.map((policy) => [`${policy.type}/${policy.meta.name}`, policy.meta.labels]));
  const originMeta = ({ type, mesh, name }: PolicyOrigin) => ({ type, mesh, name, labels: labels.get(`${type}/${name}`) ?? {} });
  const subsetRule = (rule: Rule<unknown>) => ({
    conf: rule.conf,
    matchers: rule.subset.map(({ key, value, not }) => ({ key, value, not: not === true })),
    // Kuma lists each policy once per rule, in merge order; meshdesk's origins name items.
    origin: [...new Map(rule.origins.map((origin) => [`${origin.mesh}/${origin.name}`, originMeta(origin)])).values()],
  });
  const inboundRule = (rule: InboundRule<unknown>) => ({
    conf: [rule.conf],
    ...(rule.match && { match: rule.match }),
    origin: rule.origins.map((origin) => ({ resourceMeta: originMeta(origin), ruleIndex: itemIndex(origin.item) })),
  });
  const httpMatches = new Map<string, unknown>();
  const rules: InspectRulesResponse['rules'] = [];
  for (const computed of computeAllProxyRules(context, dataplane)) {
    const { type, rules: proxyRules, inboundRules } = computed;
    if (type === 'MeshHTTPRoute') {
      for (const rule of proxyRules.to) {
        for (const routeRule of ((rule.conf as { rules?: { matches?: HttpMatch[] }[] }).rules ?? [])) httpMatches.set(ruleMatchesHash(routeRule.matches), routeRule.matches);
      }
    }
    // Old `to` rules do not reach outbounds made from real resources, all of them in Exclusive mode.
    const toRules = exclusive ? [] : proxyRules.to.map(subsetRule);
    const fromRules = byPort(dataplane, proxyRules.from).map(({ inbound, rules: list }) => ({ inbound, rules: list.map(subsetRule) }));
    const inbound = byPort(dataplane, inboundRules).map(({ inbound: entry, rules: list }) => ({ inbound: entry, rules: list.map(inboundRule) }));
    if (toRules.length === 0 && fromRules.length === 0 && inbound.length === 0) continue;
    rules.push({ type, toRules, toResourceRules: [], fromRules, inboundRules: inbound, warnings: [...computed.warnings] });
  }
  return {
    httpMatches: [...httpMatches].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([hash, match]) => ({ hash, match })),
    resource: metaOf(dataplane),
    rules,
  };
}

/**
 * `GET /meshes/{mesh}/{policies}/{name}/_resources/dataplanes` (Kuma's
 * InspectDataplanesForPolicyResponse): the Dataplanes the policy's top-level targetRef selects.
 * `nameContains` is Kuma's `name` query filter.
 */
export function dataplanesForPolicy(context: MeshContext, policy: PolicyResource, nameContains = '') {
  const items = [...context.dataplanesByName.values()]
    .filter((dataplane) => dataplane.meta.name.includes(nameContains))
    .filter((dataplane) => computeProxyRules(context, dataplane, policy.type).matched.includes(policy))
    .map(metaOf);
  return { total: items.length, items, next: null };
}

/** `spec.rules[2]` → 2 (Kuma's ruleIndex). */
function itemIndex(item: string): number {
  return Number(/\[(\d+)\]$/.exec(item)?.[1] ?? 0);
}

/** Rules per inbound as Kuma lists them: by port, with the inbound's name and tags. */
function byPort<R>(dataplane: DataplaneResource, byInbound: ReadonlyMap<InboundKey, readonly R[]>) {
  return (dataplane.spec.networking.inbound ?? [])
    .filter((inbound) => (byInbound.get(inboundKeyOf(dataplane, inbound))?.length ?? 0) > 0)
    .map((inbound) => ({
      inbound: { ...(inbound.name && { name: inbound.name }), port: inbound.port, tags: inbound.tags ?? {} },
      rules: byInbound.get(inboundKeyOf(dataplane, inbound))!,
    }))
    .sort((a, b) => a.inbound.port - b.inbound.port);
}
