// Kuma's legacy tag-subset rules (pkg/plugins/policies/core/rules/rules.go BuildRules), for `to` and `from`.
import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import { mergeConfsOf, originsByPart } from './merge.js';
import type { Rule, Subset, SubsetTag } from './rules.js';
import { containsSubset, isTagKind, positiveTags, subsetCombinations, subsetKey, subsetOf, subsetsIntersect } from './subsets.js';
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
 * Throws when an item's kind cannot be a subset (a `to` MeshGateway): Kuma then has no rules.
 */
export function buildSubsetRules(type: PolicyType, items: readonly SubsetItem[], withNegations: boolean, intern: RuleInterner = buildNow): Rule<unknown>[] {
  const tagItems = items.filter((item) => isTagKind(item.targetRef));
  if (tagItems.length === 0) return [];
  const subsets = tagItems.map((item) => {
    const subset = subsetOf(item.targetRef);
    if (!subset) throw new Error(`can't represent ${item.targetRef.kind} as tags`);
    return subset;
  });
  const keys = new Set(subsets.flatMap((subset) => subset.map((tag) => tag.key)));
  const rules: Rule<unknown>[] = [];
  if (!withNegations && keys.size <= 1) {
    const seen = new Set<string>();
    for (const subset of subsets) {
      const key = subsetKey(subset);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(...rulesFor(type, subset, tagItems, subsets, intern));
    }
    return stableSortDescending(rules, (rule) => rule.subset.length);
  }
  for (const clique of sortedCliques(subsets)) {
    const tags = uniqueTags(clique.flatMap((node) => subsets[node]!)).sort((a, b) => compare(a.key, b.key) || compare(a.value, b.value));
    for (const subset of subsetCombinations(tags)) rules.push(...rulesFor(type, subset, tagItems, subsets, intern));
  }
  return stableSortDescending(rules, (rule) => positiveTags(rule.subset));
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
function rulesFor(type: PolicyType, subset: Subset, items: readonly SubsetItem[], subsets: readonly Subset[], intern: RuleInterner): Rule<unknown>[] {
  const relevant = items.filter((_, index) => containsSubset(subsets[index]!, subset));
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

/**
 * The maximal groups of items that some proxy can belong to all at once (Kuma: Bron–Kerbosch
 * maximal cliques of the "subsets intersect" graph), each as ascending item indexes, in Kuma's
 * order: by the indexes joined with ":", DEScending as strings.
 */
function sortedCliques(subsets: readonly Subset[]): number[][] {
  const neighbours = subsets.map((subset, node) =>
    new Set(subsets.flatMap((other, index) => (index !== node && subsetsIntersect(subset, other) ? [index] : []))),
  );
  const cliques: number[][] = [];
  const extend = (clique: number[], candidates: Set<number>, excluded: Set<number>): void => {
    if (candidates.size === 0 && excluded.size === 0) {
      cliques.push([...clique].sort((a, b) => a - b));
      return;
    }
    for (const node of [...candidates]) {
      const around = neighbours[node]!;
      extend([...clique, node], new Set([...candidates].filter((each) => around.has(each))), new Set([...excluded].filter((each) => around.has(each))));
      candidates.delete(node);
      excluded.add(node);
    }
  };
  extend([], new Set(subsets.keys()), new Set());
  return cliques.map((clique) => ({ clique, key: clique.join(':') })).sort((a, b) => compare(b.key, a.key)).map(({ clique }) => clique);
}

function uniqueTags(tags: readonly SubsetTag[]): SubsetTag[] {
  const byKey = new Map(tags.map((tag) => [`${tag.key}\u0000${tag.value}\u0000${tag.not === true}`, tag]));
  return [...byKey.values()];
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

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
