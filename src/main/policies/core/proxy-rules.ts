// The rules of one policy type for one proxy, as Kuma's MatchedPolicies computes them, shared through the MeshContext.
import type { PolicyType } from '../../../shared/policy-types.js';
import type { DataplaneResource } from '../../../shared/resources.js';
import { policiesOf, type MeshContext } from '../../xds/context/mesh-context.js';
import { canonical, carriedMemo, jsonWithMaps } from '../../xds/context/carried-memo.js';
import { memoizedForContext } from '../../xds/generate/context-memo.js';
import { POLICY_DESCRIPTORS } from '../descriptors.js';
import type { HttpMatch } from '../meshhttproute/api.js';
import { ruleMatchesHash } from '../meshhttproute/prepare-routes.js';
import { buildInboundRules, withMergedCatchAll } from './inbound-rules.js';
import { TargetRefError, referencedRoute, selectedInbounds, selectsProxy, sortByTargetRef, topLevelRef, type Selection } from './matching.js';
import { toItemConf } from './merge.js';
import type { PolicyDescriptor } from './plugin.js';
import type { PolicyResource, ToItem } from './policy.js';
import type { InboundKey, InboundRule, ProxyRules, Rule } from './rules.js';
import { buildSubsetRules, type RuleInterner, type SubsetItem } from './subset-rules.js';
import type { TargetRef } from './target-ref.js';

/** The tag a `to` item of a policy aimed at a MeshHTTPRoute gets: its conf applies to that route's rules only. */
export const RULE_MATCHES_HASH_TAG = '__rule-matches-hash__';

/** What one policy type computes for one proxy: the rules plugins read, and what `_rules` shows besides. */
export interface ComputedRules {
  type: PolicyType;
  /** Every policy of the type that selects the proxy, in merge order (least specific first). */
  matched: readonly PolicyResource[];
  /** The rules handed to the type's plugin (inbound catch-all rules merged into one, unless the type keeps them apart). */
  rules: ProxyRules<unknown>;
  /** Per inbound, every inbound rule with its own conf, as Kuma's `_rules` lists them. */
  inboundRules: ReadonlyMap<InboundKey, readonly InboundRule<unknown>[]>;
  /** Why part of the rules could not be built (Kuma's MatchedPolicies warnings). */
  warnings: readonly string[];
}

const DESCRIPTORS = new Map(POLICY_DESCRIPTORS.map((descriptor) => [descriptor.type, descriptor]));

/**
 * The rules of `type` for the proxy of `dataplane`, computed once per MeshContext and Dataplane.
 * Proxies whose matched policies are the same share the `to` rules, and inbounds selected by the
 * same policies share their `from` and inbound rules, so a tick after a change builds each set once.
 */
export function computeProxyRules(context: MeshContext, dataplane: DataplaneResource, type: PolicyType): ComputedRules {
  // By the Dataplane object itself: the API may hand in a Dataplane newer than the context's.
  const byDataplane = memoizedForContext(context, `policy-rules:${type}`, () => new WeakMap<DataplaneResource, ComputedRules>());
  let computed = byDataplane.get(dataplane);
  if (!computed) byDataplane.set(dataplane, (computed = carriedOrComputed(context, dataplane, type)));
  return computed;
}

type RulesByInputs = WeakMap<readonly PolicyResource[], WeakMap<DataplaneResource, ComputedRules>>;

/**
 * The rules the mesh's previous context computed from equal inputs (the proxy's Dataplane, the
 * policies of the type and the MeshHTTPRoutes they may target, each the previous context's
 * object when equal, see `canonical`), else computed: after an edit of one policy or Dataplane,
 * the rules of every other type and proxy are the last tick's very objects.
 */
function carriedOrComputed(context: MeshContext, dataplane: DataplaneResource, type: PolicyType): ComputedRules {
  const policies = canonical(context, 'policies', policiesOf(context, type));
  const routes = canonical(context, 'policies', policiesOf(context, 'MeshHTTPRoute'));
  const memo = carriedMemo<readonly PolicyResource[], RulesByInputs>(context, `policy-rules:${type}`, () => new WeakMap());
  let byRoutes = memo.get(policies);
  if (byRoutes === undefined) memo.set(policies, (byRoutes = new WeakMap()));
  let byDataplane = byRoutes.get(routes);
  if (byDataplane === undefined) byRoutes.set(routes, (byDataplane = new WeakMap()));
  const key = canonical(context, 'dataplane', dataplane);
  let computed = byDataplane.get(key);
  if (computed === undefined) byDataplane.set(key, (computed = compute(context, dataplane, type)));
  return computed;
}

function compute(context: MeshContext, dataplane: DataplaneResource, type: PolicyType): ComputedRules {
  const descriptor = DESCRIPTORS.get(type)!;
  const warnings: string[] = [];
  const routes = policiesOf(context, 'MeshHTTPRoute');
  const byInbound = new Map<InboundKey, PolicyResource[]>();
  const matched: PolicyResource[] = [];
  for (const policy of policiesOf(context, type)) {
    let selection: Selection;
    try {
      selection = selectedInbounds(policy, dataplane, routes);
    } catch (error) {
      if (!(error instanceof TargetRefError)) throw error;
      warnings.push(`unable to resolve TargetRef on policy: mesh:${policy.meta.mesh} name:${policy.meta.name} error:${JSON.stringify(error.message)}`);
      continue;
    }
    if (!selectsProxy(selection)) continue;
    matched.push(policy);
    for (const inbound of selection.inbounds) appendTo(byInbound, inbound, policy);
  }
  const sorted = sortByTargetRef(matched);
  const from = new Map<InboundKey, readonly Rule<unknown>[]>();
  const inboundRules = new Map<InboundKey, readonly InboundRule<unknown>[]>();
  const inbound = new Map<InboundKey, readonly InboundRule<unknown>[]>();
  for (const [key, policies] of byInbound) {
    const inOrder = sortByTargetRef(policies);
    const names = policySetKey(inOrder);
    if (descriptor.fromKinds) {
      const rules = shared(context, `from:${type}:${names}`, warnings, 'From', () => buildSubsetRules(type, fromItems(type, inOrder), true, interner(context, 'from')));
      if (rules.length > 0) from.set(key, rules);
    }
    if (descriptor.hasRules || descriptor.fromAsRules) {
      const rules = memoizedForContext(context, `inbound:${type}:${names}`, () => {
        const all = buildInboundRules(type, inOrder, descriptor.fromAsRules);
        return canonical(context, 'inbound-rules', { all, forPlugins: descriptor.inboundRulesApart ? all : withMergedCatchAll(type, all) }, jsonWithMaps);
      });
      if (rules.all.length > 0) {
        inboundRules.set(key, rules.all);
        inbound.set(key, rules.forPlugins);
      }
    }
  }
  const to = descriptor.toKinds
    ? shared(context, `to:${type}:${policySetKey(sorted)}`, warnings, 'To', () => buildSubsetRules(type, toItems(type, sorted, routes), false, interner(context, 'to')))
    : NO_TO_RULES;
  return { type, matched: sorted, rules: proxyRules(context, to, from, inbound), inboundRules, warnings };
}

/** Rules with only `to` rules, by those (canonical, so the same across ticks). */
const onlyTo = new WeakMap<readonly Rule<unknown>[], ProxyRules<unknown>>();
const NO_INBOUND_RULES: ReadonlyMap<InboundKey, never> = new Map<InboundKey, never>();
const NO_TO_RULES: readonly Rule<unknown>[] = Object.freeze([]);

/**
 * The last tick's very rules when equal: a plugin whose rules are the same object is replayed
 * (plugin-replay.ts), and an edit of one policy recomputes the rules of its type for every proxy,
 * most of them unchanged. Rules with only `to` rules (every outbound-only type) are found by those
 * alone, without a JSON text per proxy.
 */
function proxyRules(context: MeshContext, to: readonly Rule<unknown>[], from: ProxyRules<unknown>['from'], inbound: ProxyRules<unknown>['inbound']): ProxyRules<unknown> {
  if (from.size > 0 || inbound.size > 0) return canonical(context, 'proxy-rules', { to, from, inbound }, jsonWithMaps);
  let rules = onlyTo.get(to);
  if (rules === undefined) onlyTo.set(to, (rules = { to, from: NO_INBOUND_RULES, inbound: NO_INBOUND_RULES }));
  return rules;
}

/** Rules shared by every proxy with the same policies; a failure is a warning (as in Kuma), the rules then empty. */
function shared(context: MeshContext, key: string, warnings: string[], kind: 'To' | 'From', build: () => Rule<unknown>[]): readonly Rule<unknown>[] {
  const result = memoizedForContext(context, key, () => {
    try {
      // The mesh's previous context's very list when equal: the rules built from it are found by it.
      return { rules: canonical(context, `rule-lists:${kind}`, build(), jsonWithMaps) };
    } catch (error) {
      return { rules: [], warning: `couldn't create ${kind} rules: ${error instanceof Error ? error.message : String(error)}` };
    }
  });
  if (result.warning) warnings.push(result.warning);
  return result.rules;
}

/**
 * Rules of equal subset and items are one object per context (see RuleInterner), and the very
 * object of the mesh's previous context when equal in content (see `canonical`): plugins derive
 * and share edits by rule object, so a tick after a change keeps what an unchanged rule made.
 */
function interner(context: MeshContext, kind: 'to' | 'from'): RuleInterner {
  return (key, build) => memoizedForContext(context, `rule:${kind}:${key}`, () => canonical(context, `rules:${kind}`, build(), jsonWithMaps));
}

function appendTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

/** Names a sorted set of policies (their type is in the memo key already). */
function policySetKey(policies: readonly PolicyResource[]): string {
  return policies.map((policy) => policy.meta.name).join('\u0000');
}

function fromItems(type: PolicyType, policies: readonly PolicyResource[]): SubsetItem[] {
  return policies.flatMap(({ meta, spec }) =>
    (spec.from ?? []).map((item, index) => ({
      targetRef: item.targetRef,
      // An item without a `default` is Go's zero conf, not none (Kuma's confs are struct values).
      conf: item.default ?? {},
      origin: { type, mesh: meta.mesh, name: meta.name, item: `spec.from[${index}]` },
    })),
  );
}

/**
 * The `to` items as tag subsets (Kuma's legacyBuildToRules). A policy whose top-level ref is a
 * MeshHTTPRoute applies each of its items to that route's rules only, by each rule's matches hash.
 * A `to` item aimed at a MeshHTTPRoute is read the same way, for that route (Kuma gives such
 * policies real-resource rules instead, which meshdesk, without MeshService resources, does not
 * have: the hash subsets are how a plugin finds the route's Envoy routes, named by that hash).
 * A route that does not exist fails the policy type's `to` rules, as in Kuma.
 */
function toItems(type: PolicyType, policies: readonly PolicyResource[], routes: readonly PolicyResource[]): SubsetItem[] {
  return policies.flatMap((policy) => {
    const items = (policy.spec.to ?? []).map((item, index) => ({
      item,
      conf: toItemConf(type, item),
      origin: { type, mesh: policy.meta.mesh, name: policy.meta.name, item: `spec.to[${index}]` },
    }));
    const top = topLevelRef(policy);
    if (top.kind === 'MeshHTTPRoute') {
      // Kuma's order: the route's rules, then the policy's items for each.
      return routeRuleRefs(policy, top.name, routes).flatMap((targetRef) => items.map(({ conf, origin }) => ({ targetRef, conf, origin })));
    }
    return items.flatMap(({ item, conf, origin }) =>
      item.targetRef.kind === 'MeshHTTPRoute'
        ? routeRuleRefs(policy, item.targetRef.name, routes).map((targetRef) => ({ targetRef, conf, origin }))
        : [{ targetRef: item.targetRef, conf, origin }],
    );
  });
}

/** One subset per rule of the route the policy names: the route's destination, narrowed to the rule's matches hash. */
function routeRuleRefs(policy: PolicyResource, name: string | undefined, routes: readonly PolicyResource[]): TargetRef[] {
  const route = referencedRoute(policy, name, routes);
  if (!route) throw new Error("can't resolve MeshHTTPRoute policy");
  return (route.spec.to ?? []).flatMap((routeItem) =>
    ((routeItem.rules ?? []) as { matches?: HttpMatch[] }[]).map((routeRule) => routeRuleRef(routeItem, ruleMatchesHash(routeRule.matches))),
  );
}

/** The subset of one route rule: the route's destination, narrowed to that rule's matches hash. */
function routeRuleRef(routeItem: ToItem, hash: string): TargetRef {
  const tags = { [RULE_MATCHES_HASH_TAG]: hash };
  const { kind, name } = routeItem.targetRef;
  return kind === 'Mesh' || kind === 'MeshSubset' ? { kind: 'MeshSubset', tags } : { kind: 'MeshServiceSubset', ...(name !== undefined && { name }), tags };
}

/** Every policy type's rules for the proxy, in plugin order. */
export function computeAllProxyRules(context: MeshContext, dataplane: DataplaneResource): ComputedRules[] {
  return POLICY_DESCRIPTORS.map((descriptor: PolicyDescriptor) => computeProxyRules(context, dataplane, descriptor.type));
}
