// Which subsets Kuma's legacy rules are built for (rules.go BuildRules), found and counted before
// any rule is built: their number is a product over tag keys, so it is checked against a bound first.
import type { Subset, SubsetTag } from './rules.js';
import { containsSubset, subsetKey, subsetsIntersect } from './subsets.js';

/**
 * Pairs of intersecting subsets the clique search may hold in memory. A clique of m distinct
 * subsets makes at least m combinations, so this is reached only by inputs far past any
 * combination bound, or by many policies whose targetRefs name disjoint tag keys.
 */
const MAX_INTERSECTING_PAIRS = 1_000_000;

/** The subsets the items make more rules for than the bound allows; thrown before any rule is built. */
export class SubsetCombinationsError extends Error {
  constructor(
    readonly limit: number,
    readonly keys: readonly string[],
    what = `more than ${limit} subset combinations`,
  ) {
    const named = keys.length > 8 ? `${keys.slice(0, 8).join(', ')} and ${keys.length - 8} more` : keys.join(', ');
    super(`the targetRefs' tags make ${what} (one rule per combination of the values of tag keys ${named}): name fewer tag keys or values`);
  }
}

/** The subsets rules are built for, in Kuma's order, and which items each one takes. */
export interface SubsetPlan {
  /**
   * Each group's tags, whose every combination is a subset (`subsetCombinations`), or, with
   * `distinct`, each group is one subset itself (one tag key and no negations: no combinations).
   */
  groups: readonly Subset[];
  distinct: boolean;
  /** How many subsets the groups make. */
  combinations: number;
  /** The items (indexes, ascending: merge order) whose subset contains `subset`. */
  itemsContaining(subset: Subset): number[];
}

/** One distinct subset of the items, with the items (ascending) that have it. */
interface Node {
  subset: Subset;
  items: number[];
}

/**
 * Plans the rules of items with these subsets (in merge order); throws SubsetCombinationsError
 * when they would make more than `limit` subsets. Equal subsets are one node (they lie in the
 * same maximal cliques), and only subsets that can share a key value are compared, so the common
 * inputs (many MeshService items, one tag key) cost time linear in the items.
 */
export function planSubsets(subsets: readonly Subset[], withNegations: boolean, limit: number): SubsetPlan {
  const nodes = distinctNodes(subsets);
  const index = new NodeIndex(nodes);
  const itemsContaining = (subset: Subset) => index.containing(subset);
  if (!withNegations && index.keys.length <= 1) {
    if (nodes.length > limit) throw new SubsetCombinationsError(limit, index.keys);
    return { groups: nodes.map((node) => node.subset), distinct: true, combinations: nodes.length, itemsContaining };
  }
  const neighbours = index.neighbours(new SubsetCombinationsError(limit, index.keys, `more than ${MAX_INTERSECTING_PAIRS} pairs of intersecting subsets`));
  const cliques: { items: number[]; tags: SubsetTag[] }[] = [];
  let combinations = 0;
  maximalCliques(neighbours, (clique) => {
    const tags = uniqueTags(clique.flatMap((node) => nodes[node]!.subset)).sort((a, b) => compare(a.key, b.key) || compare(a.value, b.value));
    combinations += combinationCount(tags, limit);
    if (combinations > limit) throw new SubsetCombinationsError(limit, [...new Set(tags.map((tag) => tag.key))]);
    cliques.push({ items: clique.flatMap((node) => nodes[node]!.items).sort((a, b) => a - b), tags });
  });
  // Kuma's order: by the item indexes joined with ":", descending as strings.
  const ordered = cliques.map((clique) => ({ clique, key: clique.items.join(':') })).sort((a, b) => compare(b.key, a.key));
  return { groups: ordered.map(({ clique }) => clique.tags), distinct: false, combinations, itemsContaining };
}

function distinctNodes(subsets: readonly Subset[]): Node[] {
  const byKey = new Map<string, Node>();
  subsets.forEach((subset, item) => {
    const key = subsetKey(subset);
    const node = byKey.get(key);
    if (node) node.items.push(item);
    else byKey.set(key, { subset, items: [item] });
  });
  return [...byKey.values()];
}

/** Nodes by the tag values they require, so that a node meets only the nodes it may intersect or lie in. */
class NodeIndex {
  readonly keys: string[];
  private readonly byKeyValue = new Map<string, number[]>();
  private readonly byKey = new Map<string, Set<number>>();
  private readonly withoutKey = new Map<string, number[]>();
  private readonly untagged: number[] = [];

  constructor(private readonly nodes: readonly Node[]) {
    nodes.forEach((node, index) => {
      const positive = node.subset.filter((tag) => tag.not !== true);
      if (positive.length === 0) this.untagged.push(index);
      for (const { key, value } of positive) {
        append(this.byKeyValue, tagKey(key, value), index);
        let withKey = this.byKey.get(key);
        if (!withKey) this.byKey.set(key, (withKey = new Set()));
        withKey.add(index);
      }
    });
    this.keys = [...new Set(nodes.flatMap((node) => node.subset.map((tag) => tag.key)))];
  }

  /** The items (ascending) whose subset contains `subset`: only nodes whose every tag it requires can. */
  containing(subset: Subset): number[] {
    const candidates = new Set(this.untagged);
    for (const { key, value, not } of subset) if (not !== true) for (const node of this.byKeyValue.get(tagKey(key, value)) ?? []) candidates.add(node);
    const items: number[] = [];
    for (const node of candidates) if (containsSubset(this.nodes[node]!.subset, subset)) items.push(...this.nodes[node]!.items);
    return items.sort((a, b) => a - b);
  }

  /** Each node's intersecting nodes; `tooMany` is thrown past MAX_INTERSECTING_PAIRS. */
  neighbours(tooMany: Error): Set<number>[] {
    let pairs = 0;
    return this.nodes.map((node, index) => {
      const found = new Set<number>();
      for (const other of this.candidates(node)) {
        if (other === index || !subsetsIntersect(node.subset, this.nodes[other]!.subset)) continue;
        found.add(other);
        if (++pairs > MAX_INTERSECTING_PAIRS) throw tooMany;
      }
      return found;
    });
  }

  /** The nodes that may intersect `node`: for its most telling key, those without that key or with its value. */
  private candidates(node: Node): Iterable<number> {
    const positive = node.subset.filter((tag) => tag.not !== true);
    if (positive.length === 0) return this.nodes.keys();
    let best = positive[0]!;
    let bestSize = Infinity;
    for (const tag of positive) {
      const size = this.nodes.length - this.byKey.get(tag.key)!.size + this.byKeyValue.get(tagKey(tag.key, tag.value))!.length;
      if (size < bestSize) [best, bestSize] = [tag, size];
    }
    return [...this.without(best.key), ...this.byKeyValue.get(tagKey(best.key, best.value))!];
  }

  private without(key: string): number[] {
    let list = this.withoutKey.get(key);
    if (!list) {
      const withKey = this.byKey.get(key)!;
      this.withoutKey.set(key, (list = [...this.nodes.keys()].filter((node) => !withKey.has(node))));
    }
    return list;
  }
}

/**
 * Every maximal clique of the "subsets intersect" graph (Bron–Kerbosch with Tomita's pivot: a
 * clique of n pairwise-intersecting subsets costs n steps, not 2^n). The order they are found in
 * does not matter: the plan sorts them as Kuma does.
 */
function maximalCliques(neighbours: readonly Set<number>[], onClique: (clique: number[]) => void): void {
  const extend = (clique: number[], candidates: Set<number>, excluded: Set<number>): void => {
    if (candidates.size === 0) {
      if (excluded.size === 0) onClique(clique);
      return;
    }
    let pivot = -1;
    let most = -1;
    for (const node of [...candidates, ...excluded]) {
      const inCandidates = countIn(neighbours[node]!, candidates);
      if (inCandidates > most) [pivot, most] = [node, inCandidates];
    }
    for (const node of [...candidates]) {
      if (neighbours[pivot]!.has(node)) continue;
      const around = neighbours[node]!;
      extend([...clique, node], intersection(candidates, around), intersection(excluded, around));
      candidates.delete(node);
      excluded.add(node);
    }
  };
  extend([], new Set(neighbours.keys()), new Set());
}

function countIn(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let count = 0;
  for (const each of small) if (large.has(each)) count++;
  return count;
}

function intersection(a: ReadonlySet<number>, b: ReadonlySet<number>): Set<number> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const result = new Set<number>();
  for (const each of small) if (large.has(each)) result.add(each);
  return result;
}

/** How many subsets `subsetCombinations(tags)` makes (each key one of its values or none), capped past `limit`. */
function combinationCount(tags: readonly SubsetTag[], limit: number): number {
  const values = new Map<string, Set<string>>();
  for (const { key, value } of tags) {
    let set = values.get(key);
    if (!set) values.set(key, (set = new Set()));
    set.add(value);
  }
  let count = 1;
  for (const set of values.values()) {
    count *= set.size + 1;
    if (count > limit) return limit + 1;
  }
  return count;
}

function uniqueTags(tags: readonly SubsetTag[]): SubsetTag[] {
  const byKey = new Map(tags.map((tag) => [`${tag.key}\u0000${tag.value}\u0000${tag.not === true}`, tag]));
  return [...byKey.values()];
}

function tagKey(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

function append<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
