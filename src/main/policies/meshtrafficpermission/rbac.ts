// What MeshTrafficPermission allows on one inbound, as Envoy's RBAC config (Kuma's
// xds/legacy_rbac_configurer.go and xds/rbac_configurer.go). Pure: the Envoy plugin puts it in an
// RBAC filter, the proxyless gRPC plugin hands it to gRPC's RBAC (gRFC A41).
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG, type MeshResource } from '../../../shared/resources.js';
import { kumaTagId, spiffeId } from '../../mtls/mesh-ca.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { anyMatchPredicate } from '../core/match-predicate.js';
import type { RuleMatch } from '../core/policy.js';
import type { PluginInput } from '../core/plugin.js';
import { policyKri, type PolicyLookup } from '../core/policy-kri.js';
import type { InboundKey, InboundRule, ProxyRules, Rule, Subset } from '../core/rules.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { meshTrafficPermissionDescriptor } from './descriptor.js';

export const HTTP_RBAC_FILTER = 'envoy.filters.http.rbac';
export const HTTP_RBAC_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC';
export const NETWORK_RBAC_FILTER = 'envoy.filters.network.rbac';
export const NETWORK_RBAC_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC';

/** The one RBAC policy the legacy `from` form writes, named as Kuma names it. */
export const RBAC_POLICY_NAME = 'MeshTrafficPermission';
const RBAC_ACTION_TYPE_URL = 'type.googleapis.com/envoy.config.rbac.v3.Action';
const RBAC_ACTION_EXTENSION = 'envoy.filters.rbac.action';
/** The action a matcher takes on a caller no rule names: Kuma's deny, named "default". */
const DEFAULT_ACTION_NAME = 'default';

/**
 * An inbound's permissions in one of Envoy RBAC's two forms, with the policy items behind them.
 * `rules`: legacy `from` (an ALLOW policy, principals only; `shadowRules` a DENY policy for
 * AllowWithShadowDeny), also the deny-all of an inbound no MeshTrafficPermission selects.
 * `matcher`: the `rules` API (deny matchers, then allow matchers, default deny).
 * Every field is proto JSON of envoy.config.rbac.v3.RBAC / xds.type.matcher.v3.Matcher.
 */
export type InboundRbac =
  | { form: 'rules'; rules: ProtoJson; shadowRules?: ProtoJson; origins: readonly PolicyOrigin[] }
  | { form: 'matcher'; matcher: ProtoJson; shadowMatcher?: ProtoJson; origins: readonly PolicyOrigin[] };

/** Where the RBAC is built: the proxy's mesh (SPIFFE IDs) and its policies (KRIs of the `rules` actions). */
export interface RbacScope {
  mesh: MeshResource;
  policyNamed: PolicyLookup;
}

/** A plugin run's scope: its proxy's mesh, and the policies it names read through its resources (reads its replay checks). */
export function rbacScopeOf({ context, resources }: Pick<PluginInput<unknown>, 'context' | 'resources'>): RbacScope {
  return { mesh: context.mesh, policyNamed: (type, name) => resources.policyNamed(type, name) };
}

/**
 * The RBAC of one inbound of a proxy in an mTLS mesh (Kuma's plugin Apply): its `rules` when any
 * MeshTrafficPermission `rules` select it, else its legacy `from` rules, else deny everything —
 * with mTLS on, a caller needs a permission.
 */
export function rbacForInbound(rules: ProxyRules<MeshTrafficPermissionConf>, inbound: InboundKey, scope: RbacScope): InboundRbac {
  const inboundRules = rules.inbound.get(inbound) ?? [];
  if (inboundRules.length > 0) return matcherRbac(inboundRules, scope);
  const fromRules = rules.from.get(inbound);
  if (fromRules) return legacyRbac(fromRules, scope.mesh.meta.name);
  return { form: 'rules', rules: {}, origins: [] };
}

/**
 * The fields of Envoy's RBAC filter config (http and network alike; the network one adds its
 * stat_prefix) for an inbound's RBAC.
 */
export function rbacFilterFields(rbac: InboundRbac): ProtoJson {
  if (rbac.form === 'rules') return { rules: rbac.rules, ...(rbac.shadowRules && { shadow_rules: rbac.shadowRules }) };
  return { matcher: rbac.matcher, ...(rbac.shadowMatcher && { shadow_matcher: rbac.shadowMatcher }) };
}

/** Kuma's LegacyRBACConfigurer: the Allow and AllowWithShadowDeny subsets as principals of one ALLOW policy. */
function legacyRbac(fromRules: readonly Rule<MeshTrafficPermissionConf>[], mesh: string): InboundRbac {
  const principals = (action: string) => fromRules.filter((rule) => rule.conf.action === action).map((rule) => principalOf(rule.subset, mesh));
  const allowed = [...principals('Allow'), ...principals('AllowWithShadowDeny')];
  const shadowDenied = principals('AllowWithShadowDeny');
  const policy = (list: ProtoJson[]) => ({ policies: { [RBAC_POLICY_NAME]: { permissions: [{ any: true }], principals: list } } });
  return {
    form: 'rules',
    // ALLOW is the enum's default: Kuma's golden omits it, and so does meshdesk.
    rules: allowed.length > 0 ? policy(allowed) : {},
    ...(shadowDenied.length > 0 && { shadowRules: { action: 'DENY', ...policy(shadowDenied) } }),
    origins: originsOf(fromRules),
  };
}

/** Kuma's principalFromSubset: every tag of the callers' subset (ANDed, negations as not_id); no tag: anyone. */
function principalOf(subset: Subset, mesh: string): ProtoJson {
  const principals = subset.map(({ key, value, not }) => {
    const exact = key === SERVICE_TAG ? spiffeId(mesh, value) : kumaTagId(key, value);
    const principal: ProtoJson = { authenticated: { principal_name: { exact } } };
    return not ? { not_id: principal } : principal;
  });
  if (principals.length === 0) return { any: true };
  if (principals.length === 1) return principals[0]!;
  return { and_ids: { ids: principals } };
}

/**
 * Kuma's RBACConfigurer: every rule's deny matches before any allow (merged policies may come
 * broad first, and Envoy stops at the first match), allow and allowWithShadowDeny allowed
 * together; a caller no rule names is denied. The shadow matcher denies the allowWithShadowDeny
 * callers, so what a Deny would refuse shows in Envoy's shadow stats only.
 */
function matcherRbac(rules: readonly InboundRule<MeshTrafficPermissionConf>[], scope: RbacScope): InboundRbac {
  const named = rules.map((rule) => ({ conf: rule.conf, name: policyKri(meshTrafficPermissionDescriptor.shortName, rule.origins, scope.policyNamed) }));
  const deny = named.map(({ conf, name }) => fieldMatcher(conf.deny ?? [], 'DENY', name));
  const allow = named.map(({ conf, name }) => fieldMatcher([...(conf.allow ?? []), ...(conf.allowWithShadowDeny ?? [])], 'ALLOW', name));
  const shadow = named.filter(({ conf }) => conf.allowWithShadowDeny !== undefined).map(({ conf, name }) => fieldMatcher(conf.allowWithShadowDeny!, 'DENY', name));
  return {
    form: 'matcher',
    matcher: matcherOf([...deny, ...allow]),
    ...(shadow.length > 0 && { shadowMatcher: matcherOf(shadow) }),
    origins: originsOf(rules),
  };
}

/** One field matcher: any of the matches takes the action; none when the list says nothing. */
function fieldMatcher(matches: readonly RuleMatch[], action: 'ALLOW' | 'DENY', name: string): ProtoJson | undefined {
  const predicate = anyMatchPredicate(matches);
  return predicate && { predicate, on_match: rbacAction(action, name) };
}

function matcherOf(fieldMatchers: readonly (ProtoJson | undefined)[]): ProtoJson {
  const matchers = fieldMatchers.filter((matcher): matcher is ProtoJson => matcher !== undefined);
  return { ...(matchers.length > 0 && { matcher_list: { matchers } }), on_no_match: rbacAction('DENY', DEFAULT_ACTION_NAME) };
}

function rbacAction(action: 'ALLOW' | 'DENY', name: string): ProtoJson {
  // ALLOW is the enum's default, omitted as in Kuma's goldens.
  return { action: { name: RBAC_ACTION_EXTENSION, typed_config: { '@type': RBAC_ACTION_TYPE_URL, name, ...(action === 'DENY' && { action }) } } };
}

/** Every item behind the rules, each once, in order. */
function originsOf(rules: readonly { origins: readonly PolicyOrigin[] }[]): PolicyOrigin[] {
  const seen = new Map<string, PolicyOrigin>();
  for (const origin of rules.flatMap((rule) => rule.origins)) seen.set(`${origin.mesh}/${origin.name}/${origin.item}`, origin);
  return [...seen.values()];
}
