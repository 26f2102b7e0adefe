import { describe, expect, it } from 'vitest';
import { subsetMatchesTags, type Subset } from './rules.js';
import { containsSubset, subsetCombinations, subsetsIntersect } from './subsets.js';

describe('tag subsets', () => {
  it('enumerates every combination of values and exclusions, in the order the rules are built', () => {
    const combinations = subsetCombinations([
      { key: 'team', value: 'a' },
      { key: 'team', value: 'b' },
      { key: 'zone', value: 'east' },
    ]);

    // Odometer over the keys, first key fastest; its all-zero start (each key's last value) comes last.
    expect(combinations).toEqual([
      [{ key: 'team', value: 'a' }, { key: 'zone', value: 'east' }],
      [{ key: 'team', value: 'a', not: true }, { key: 'team', value: 'b', not: true }, { key: 'zone', value: 'east' }],
      [{ key: 'team', value: 'b' }, { key: 'zone', value: 'east', not: true }],
      [{ key: 'team', value: 'a' }, { key: 'zone', value: 'east', not: true }],
      [{ key: 'team', value: 'a', not: true }, { key: 'team', value: 'b', not: true }, { key: 'zone', value: 'east', not: true }],
      [{ key: 'team', value: 'b' }, { key: 'zone', value: 'east' }],
    ]);
    expect(subsetCombinations([])).toEqual([[]]);
  });

  it('knows when one subset lies inside another, negations included', () => {
    const web: Subset = [{ key: 'kuma.io/service', value: 'web' }];
    const notWeb: Subset = [{ key: 'kuma.io/service', value: 'web', not: true }];
    const api: Subset = [{ key: 'kuma.io/service', value: 'api' }];

    expect(containsSubset([], web)).toBe(true);
    expect(containsSubset(web, web)).toBe(true);
    expect(containsSubset(web, notWeb)).toBe(false);
    expect(containsSubset(notWeb, api)).toBe(true); // api is one of "everything but web"
    expect(containsSubset(notWeb, web)).toBe(false);
    expect(containsSubset(web, [])).toBe(false);
  });

  it('knows when some proxy can be in both', () => {
    expect(subsetsIntersect([{ key: 'team', value: 'a' }], [{ key: 'zone', value: 'east' }])).toBe(true);
    expect(subsetsIntersect([{ key: 'team', value: 'a' }], [{ key: 'team', value: 'b' }, { key: 'zone', value: 'east' }])).toBe(false);
    expect(subsetsIntersect([], [{ key: 'team', value: 'b' }])).toBe(true);
  });

  it('finds the rule of a proxy with tags as Kuma does, an all-negative subset included', () => {
    expect(subsetMatchesTags([{ key: 'kuma.io/service', value: 'web', not: true }], { 'kuma.io/service': 'api' })).toBe(true);
    expect(subsetMatchesTags([{ key: 'kuma.io/service', value: 'web', not: true }], { 'kuma.io/service': 'web' })).toBe(false);
    expect(subsetMatchesTags([{ key: 'version', value: 'v1' }], { 'kuma.io/service': 'web' })).toBe(false);
    // Kuma: an element without any tag is in no subset but the empty one.
    expect(subsetMatchesTags([{ key: 'version', value: 'v1', not: true }], {})).toBe(false);
    expect(subsetMatchesTags([], {})).toBe(true);
  });
});
