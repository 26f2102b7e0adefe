// Set algebra over tag subsets, as Kuma's rules are computed with it (pkg/plugins/policies/core/rules/subsetutils).
import { SERVICE_TAG } from '../../../shared/resources.js';
import type { Subset, SubsetTag } from './rules.js';
import type { TargetRef } from './target-ref.js';

/** The kinds Kuma turns into tag subsets (its "old kinds"); the others name real resources. */
const TAG_KINDS: ReadonlySet<string> = new Set(['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'MeshGateway', 'MeshHTTPRoute']);

export function isTagKind(ref: TargetRef): boolean {
  return TAG_KINDS.has(ref.kind);
}

/** A `to`/`from` targetRef as the subset of proxies it names (Kuma's asSubset); undefined for a kind without one. */
export function subsetOf(ref: TargetRef): Subset | undefined {
  const tags = Object.entries(ref.tags ?? {}).map(([key, value]): SubsetTag => ({ key, value }));
  switch (ref.kind) {
    case 'Mesh':
      return [];
    case 'MeshSubset':
      return tags;
    case 'MeshService':
      return [{ key: SERVICE_TAG, value: ref.name ?? '' }];
    case 'MeshServiceSubset':
      return [{ key: SERVICE_TAG, value: ref.name ?? '' }, ...tags];
    default:
      return undefined;
  }
}

/** True when every element of `inner` belongs to `outer` (Kuma's Subset.IsSubset: `outer.IsSubset(inner)`). */
export function containsSubset(outer: Subset, inner: Subset): boolean {
  return outer.every((tag) => {
    const sameKey = inner.filter((other) => other.key === tag.key);
    return sameKey.length > 0 && sameKey.every((other) => tagContains(tag, other));
  });
}

function tagContains(outer: SubsetTag, inner: SubsetTag): boolean {
  const outerNot = outer.not === true;
  const innerNot = inner.not === true;
  if (outerNot === innerNot) return outer.value === inner.value;
  // {k: a} is inside {k: !b} when a != b; {k: !a} is never inside {k: b}.
  return outerNot ? outer.value !== inner.value : false;
}

/** True when some proxy can belong to both (Kuma's Subset.Intersect): no key has two different positive values. */
export function subsetsIntersect(a: Subset, b: Subset): boolean {
  return a.every((tag) => tag.not === true || b.every((other) => other.not === true || other.key !== tag.key || other.value === tag.value));
}

export function positiveTags(subset: Subset): number {
  return subset.reduce((count, tag) => count + (tag.not === true ? 0 : 1), 0);
}

/**
 * Every combination of the tags' keys, each key either one of its values or none of them (all
 * negated), in Kuma's SubsetIter order: an odometer over the keys, first key fastest, whose
 * all-zero start (every key at its last value) comes out last.
 */
export function subsetCombinations(tags: readonly SubsetTag[]): Subset[] {
  const dimensions: { key: string; values: string[] }[] = [];
  for (const { key, value } of tags) {
    let dimension = dimensions.find((each) => each.key === key);
    if (!dimension) dimensions.push((dimension = { key, values: [] }));
    if (!dimension.values.includes(value)) dimension.values.push(value);
  }
  const current = (counters: readonly number[]): Subset =>
    dimensions.flatMap(({ key, values }, index) => {
      const choice = counters[index]!;
      if (choice === values.length) return values.map((value) => ({ key, value, not: true }));
      return [{ key, value: values[values.length - choice - 1]! }];
    });
  const counters = dimensions.map(() => 0);
  const combinations: Subset[] = [];
  for (;;) {
    let index = 0;
    for (; index < counters.length; index++) {
      counters[index]!++;
      if (counters[index]! < dimensions[index]!.values.length + 1) break;
      counters[index] = 0;
    }
    combinations.push(current(counters));
    if (index === counters.length) return combinations;
  }
}

/** A stable text form of a subset (tags sorted), to tell equal subsets apart from different ones. */
export function subsetKey(subset: Subset): string {
  return [...subset]
    .sort((a, b) => compare(a.key, b.key) || compare(a.value, b.value) || Number(a.not === true) - Number(b.not === true))
    .map(({ key, value, not }) => `${key}:${value}:${not === true ? 1 : 0}`)
    .join('|');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
