// Kuma's legacy tag-subset rules (pkg/plugins/policies/core/rules/rules.go BuildRules), for `to` and `from`.
import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import { MAX_PROXY_SUBSET_COMBINATIONS } from './input-bounds.js';
import { mergeConfsOf, originsByPart } from './merge.js';
import type { Rule, Subset } from './rules.js';
import { planSubsets, type SubsetPlan } from './subset-plan.js';
import { isTagKind, positiveTags, subsetCombinations, subsetKey, subsetOf } from './subsets.js';
import type { TargetRef } from './target-ref.js';

/** One `to` or `from` item of a matched policy, in merge order, with the conf it contributes. */
export interface SubsetItem {
  targetRef: TargetRef;
  conf: unknown;
  origin: PolicyOrigin;
}

/**
 * The rules of these items: for every subset of proxies their targetRefs tell apart, the merge of
 * the confs of every item whose subset contains it, most specific (most positive tags) first.
 * `withNegations` (`from`) also builds the subsets that exclude a tag ("every caller but
 * demo-client"); `to` needs them only when its items use more than one tag key.
 * Items of real-resource kinds (MeshExternalService…) are not subsets and are left out.
 * Throws when an item's kind cannot be a subset (a `to` MeshGateway): Kuma then has no rules; and
 * when the items of the proxy's policies together make more subsets than MAX_PROXY_SUBSET_COMBINATIONS.
 */
export function buildSubsetRules(type: PolicyType, items: readonly SubsetItem[], withNegations: boolean, intern: RuleInterner = buildNow): Rule<unknown>[] {
  const tagItems = items.filter((item) => isTagKind(item.targetRef));
  if (tagItems.length === 0) return [];
  const plan = planSubsets(tagItems.map((item) => subsetOfItem(item)), withNegations, MAX_PROXY_SUBSET_COMBINATIONS);
  const rules: Rule<unknown>[] = [];
  for (const group of plan.groups) {
    for (const subset of plan.distinct ? [group] : subsetCombinations(group)) rules.push(...rulesFor(type, subset, tagItems, plan, intern));
  }
  return stableSortDescending(rules, plan.distinct ? (rule) => rule.subset.length : (rule) => positiveTags(rule.subset));
}

/** The subset of a tag-kind item; throws when its kind cannot be one (a `to` MeshGateway): Kuma then has no rules. */
function subsetOfItem(item: Pick<SubsetItem, 'targetRef'>): Subset {
  const subset = subsetOf(item.targetRef);
  if (!subset) throw new Error(`can't represent ${item.targetRef.kind} as tags`);
  return subset;
}

/**
 * Hands out the rules of one subset built from the same items once: `key` names the subset and
 * the items merged. Proxies whose policy sets differ still share their equal rules then, and a
 * plugin can derive once per rule (see `derived`).
 */
export type RuleInterner = (key: string, build: () => Rule<unknown>[]) => Rule<unknown>[];

function buildNow(_key: string, build: () => Rule<unknown>[]): Rule<unknown>[] {
  return build();
}

/** Kuma's createRule: the merged conf of every item whose subset contains `subset` (one rule per merged group). */
function rulesFor(type: PolicyType, subset: Subset, items: readonly SubsetItem[], plan: SubsetPlan, intern: RuleInterner): Rule<unknown>[] {
  const relevant = plan.itemsContaining(subset).map((index) => items[index]!);
  if (relevant.length === 0) return [];
  const origins = uniqueOrigins(relevant.map((item) => item.origin));
  const key = `${type}|${subsetKey(subset)}|${relevant.map(({ origin }) => `${origin.name}\u0000${origin.item}`).join('|')}`;
  return intern(key, () => {
    const originByMatches = originsByPart(type, relevant);
    return mergeConfsOf(
      type,
      relevant.map((item) => item.conf),
    ).map((conf) => ({ subset, conf, origins, ...(originByMatches && { originByMatches }) }));
  });
}

/** Each item once, in merge order. */
export function uniqueOrigins(origins: readonly PolicyOrigin[]): PolicyOrigin[] {
  const seen = new Set<string>();
  return origins.filter((origin) => {
    const key = `${origin.type}\u0000${origin.mesh}\u0000${origin.name}\u0000${origin.item}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function stableSortDescending<T>(list: T[], score: (item: T) => number): T[] {
  return list.sort((a, b) => score(b) - score(a)); // Array.prototype.sort is stable
}
