// MD0002: a policy that selects proxies but changes nothing on any of them, because policies merged
// after it in Kuma's order set every field it sets.
import type { Finding } from '../../../shared/analysis-types.js';
import { POLICY_TYPES } from '../../../shared/policy-types.js';
import { isInitialPolicy } from '../../manager/initial-policies.js';
import { canonicalJson } from '../../resources/canonical-json.js';
import { compareByTargetRef, displayName, topLevelRef } from '../../policies/core/matching.js';
import type { PolicyResource } from '../../policies/core/policy.js';
import { computeProxyRules } from '../../policies/core/proxy-rules.js';
import type { ProxyRules } from '../../policies/core/rules.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { withPolicyChange } from '../../xds/context/with-policy-change.js';
import { proxyIdOf, type Analyzer } from '../analyzer.js';

export const overriddenPolicy: Analyzer = {
  code: 'MD0002',
  severity: 'warning',
  title: 'A policy changes nothing: the policies merged after it set every field it sets, on every proxy it selects',
  concerns: POLICY_TYPES,
  analyze: (context) => context.policies.flatMap((policy) => findingsFor(context, policy)),
  analyzeFor: findingsFor,
};

function findingsFor(context: MeshContext, policy: PolicyResource): Finding[] {
  // Kuma's initial policies are the floor others build on: one covered by the user's is as meant.
  if (isInitialPolicy(policy.type, policy.meta.name, context.mesh.meta.name)) return [];
  const finding = overriddenEverywhere(context, policy);
  return finding ? [finding] : [];
}

/** The finding when every proxy `policy` selects gets the same rules without it; none when it selects none. */
function overriddenEverywhere(context: MeshContext, policy: PolicyResource): Finding | undefined {
  const selected = [...context.dataplanesByName.values()].filter((dataplane) => computeProxyRules(context, dataplane, policy.type).matched.includes(policy));
  if (selected.length === 0) return undefined;
  const without = withPolicyChange(context, { remove: { type: policy.type, name: policy.meta.name } });
  const winners = new Map<string, PolicyResource>();
  for (const dataplane of selected) {
    const withIt = computeProxyRules(context, dataplane, policy.type);
    if (effectOf(withIt.rules) !== effectOf(computeProxyRules(without, dataplane, policy.type).rules)) return undefined;
    for (const later of withIt.matched.slice(withIt.matched.indexOf(policy) + 1)) winners.set(later.meta.name, later);
  }
  const winner = [...winners.values()].sort(compareByTargetRef).at(-1);
  const mesh = context.mesh.meta.name;
  return {
    code: overriddenPolicy.code,
    severity: overriddenPolicy.severity,
    message:
      `${policy.type} ${policy.meta.name} selects ${selected.length === 1 ? 'one proxy' : `${selected.length} proxies`} and changes nothing on any of them: ` +
      (winner ? `${winner.meta.name} is merged after it and sets every field it sets (${precedence(winner, policy)})` : 'the policies merged after it set every field it sets'),
    location: { type: policy.type, mesh, name: policy.meta.name },
    related: [...winners.values()].map((later) => ({ type: later.type, mesh, name: later.meta.name })),
    proxies: selected.map((dataplane) => proxyIdOf(context, dataplane.meta.name)),
    fix: winner ? fixFor(winner, policy) : 'Remove the fields the later policies set, or remove this policy',
  };
}

/** Rules objects are shared by the proxies they are the same for: their effect is written once. */
const effects = new WeakMap<ProxyRules<unknown>, string>();

/** What `rules` do to a proxy: the confs and where they apply, not which policy items made them (nor in which order they set fields). */
function effectOf(rules: ProxyRules<unknown>): string {
  let effect = effects.get(rules);
  if (effect === undefined) effects.set(rules, (effect = writeEffect(rules)));
  return effect;
}

function writeEffect(rules: ProxyRules<unknown>): string {
  return canonicalJson({
    to: rules.to.map(({ subset, conf }) => [subset, conf]),
    from: [...rules.from].map(([inbound, list]) => [inbound, list.map(({ subset, conf }) => [subset, conf])]),
    inbound: [...rules.inbound].map(([inbound, list]) => [inbound, list.map(({ match, conf }) => [match ?? null, conf])]),
  });
}

/** Kuma's reason the winner merges later (SortByTargetRef): a more specific kind, else the name. */
function precedence(winner: PolicyResource, loser: PolicyResource): string {
  const winnerKind = topLevelRef(winner).kind;
  const loserKind = topLevelRef(loser).kind;
  if (winnerKind !== loserKind) return `its targetRef kind ${winnerKind} is more specific than ${loserKind}`;
  return `both target ${winnerKind}; of two equal targetRefs Kuma merges the alphabetically smaller name last, and "${displayName(winner)}" < "${displayName(loser)}"`;
}

function fixFor(winner: PolicyResource, loser: PolicyResource): string {
  const kind = topLevelRef(loser).kind;
  if (topLevelRef(winner).kind !== kind) return `Set these fields in ${winner.meta.name}, or aim ${loser.meta.name} at something more specific than ${kind}`;
  return `Rename ${loser.meta.name} to sort before "${displayName(winner)}" (e.g. "a-${loser.meta.name}"), aim it at a more specific targetRef (MeshService, Dataplane), or remove the fields from ${winner.meta.name}`;
}
