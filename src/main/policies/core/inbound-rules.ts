// Kuma's inbound rules (pkg/plugins/policies/core/rules/inbound): `rules[]`, and `from[]` for the from-as-rules types.
import type { PolicyType } from '../../../shared/policy-types.js';
import { mergeConfsOf } from './merge.js';
import type { PolicyResource, RuleMatch } from './policy.js';
import type { InboundRule } from './rules.js';

/**
 * The inbound rules of the policies that select one inbound, given in merge order (least specific
 * first): each `rules` item (or `from` item, when `fromAsRules`), one rule per match, then stably
 * sorted by match — spiffeID Exact, spiffeID Prefix, SNI, then the rules without match — so that a
 * plugin meets the most specific match first. Each keeps its own conf, as Kuma's `_rules` shows them.
 */
export function buildInboundRules(type: PolicyType, policies: readonly PolicyResource[], fromAsRules: boolean): InboundRule<unknown>[] {
  const rules: InboundRule<unknown>[] = [];
  for (const policy of policies) {
    const { mesh, name } = policy.meta;
    const items = policy.spec.rules?.length ? { list: policy.spec.rules, path: 'rules' } : fromAsRules && policy.spec.from?.length ? { list: policy.spec.from, path: 'from' } : undefined;
    items?.list.forEach((item, index) => {
      const origins = [{ type, mesh, name, item: `spec.${items.path}[${index}]` }];
      const matches = 'matches' in item ? (item.matches ?? []) : [];
      // An item without a `default` is Go's zero conf, not none (Kuma's confs are struct values).
      const conf = item.default ?? {};
      if (matches.length === 0) rules.push({ conf, origins });
      for (const match of matches) rules.push({ match, conf, origins });
    });
  }
  return rules.sort((a, b) => compareMatches(a.match, b.match));
}

/** Kuma's CompareByMatch: below 0 when `a` is the more specific match. */
export function compareMatches(a: RuleMatch | undefined, b: RuleMatch | undefined): number {
  return matchRank(a) - matchRank(b);
}

/** Kuma's CompareMatch: a spiffeID match before none (Exact before Prefix), then an SNI match before none. */
function matchRank(match: RuleMatch | undefined): number {
  const spiffe = match?.spiffeID ? (match.spiffeID.type === 'Exact' ? 0 : match.spiffeID.type === 'Prefix' ? 1 : 2) : 3;
  return spiffe * 2 + (match?.sni ? 0 : 1);
}

/**
 * The rules as a plugin reads them: the rules without match merged into ONE catch-all rule at the
 * end (Kuma's MatchesAllIncomingTraffic, the conf for all traffic), the matched rules as they are.
 * The catch-all's origins are every rule merged into it, in merge order.
 */
export function withMergedCatchAll(type: PolicyType, rules: readonly InboundRule<unknown>[]): InboundRule<unknown>[] {
  const matched = rules.filter((rule) => rule.match !== undefined);
  const catchAll = rules.filter((rule) => rule.match === undefined);
  if (catchAll.length <= 1) return [...matched, ...catchAll];
  const [conf] = mergeConfsOf(
    type,
    catchAll.map((rule) => rule.conf),
  );
  return [...matched, { conf, origins: catchAll.flatMap((rule) => rule.origins) }];
}
