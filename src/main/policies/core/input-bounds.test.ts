// The bounds on what one policy may ask (input-bounds.ts): refused at validation naming the field,
// generous enough for every policy of Kuma's cases, and work linear in what they allow.
import { countOperations } from '../../../../test/support/operation-count.js';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUMA_CASES_DIR, kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { parseResourceDocuments } from '../../resources/parse.js';
import { violationsOf } from '../../resources/testing/violations.js';
import { ViolationList } from '../../resources/validation-error.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { POLICY_DESCRIPTORS } from '../descriptors.js';
import { checkInputBounds, MAX_LIST_ITEMS, MAX_POLICY_SUBSET_COMBINATIONS, MAX_PROXY_SUBSET_COMBINATIONS, MAX_ROUTE_MATCHES, MAX_ROUTE_RULES } from './input-bounds.js';
import type { PolicySpec } from './policy.js';
import { computeProxyRules } from './proxy-rules.js';
import { planSubsets } from './subset-plan.js';
import { ruleFor } from './rules.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

const policy = (type: string, spec: unknown) => ({ type, mesh: 'default', name: 'bounded', spec });
const timeoutTo = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ targetRef: { kind: 'MeshService', name: `svc-${index}` }, default: { connectionTimeout: `${index + 1}s` } }));
const routeRules = (count: number, from = 0, matchesPerRule = 1) =>
  Array.from({ length: count }, (_, index) => ({
    matches: Array.from({ length: matchesPerRule }, (_, match) => ({ path: { type: 'PathPrefix', value: `/p${from + index}/${match}` } })),
    default: { backendRefs: [{ kind: 'MeshService', name: 'web' }] },
  }));
/** `from` items that each name their own tag key: every caller subset is a combination of them (2^count). */
const distinctKeyFrom = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ targetRef: { kind: 'MeshSubset', tags: { [`k${index}`]: `v${index}` } }, default: { action: 'Allow' } }));
const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }]);

describe('bounds on one policy', () => {
  it('refuses a list longer than the bound, naming the list and the bound', () => {
    expect(violationsOf(policy('MeshTimeout', { targetRef: { kind: 'Mesh' }, to: timeoutTo(MAX_LIST_ITEMS + 1) }))).toEqual([
      { field: 'spec.to', message: `must have at most ${MAX_LIST_ITEMS} items, has ${MAX_LIST_ITEMS + 1}` },
    ]);
    const allow = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, index) => ({ spiffeID: { type: 'Exact', value: `spiffe://default/s${index}` } }));
    expect(violationsOf(policy('MeshTrafficPermission', { targetRef: { kind: 'Mesh' }, rules: [{ default: { allow } }] }))).toEqual([
      { field: 'spec.rules[0].default.allow', message: `must have at most ${MAX_LIST_ITEMS} items, has ${MAX_LIST_ITEMS + 1}` },
    ]);
  });

  it('refuses route rules and matches past the policy-wide bound where the count passes it', () => {
    const half = MAX_ROUTE_RULES / 2;
    const to = [0, 1, 2].map((item) => ({ targetRef: { kind: 'MeshService', name: `svc-${item}` }, rules: routeRules(half, item * half) }));
    expect(violationsOf(policy('MeshHTTPRoute', { targetRef: { kind: 'Mesh' }, to }))).toEqual([
      { field: 'spec.to[2].rules', message: `brings the policy's route rules to ${3 * half}: at most ${MAX_ROUTE_RULES} in all of spec.to[].rules` },
    ]);
    const perRule = 8;
    const manyMatches = [{ targetRef: { kind: 'MeshService', name: 'svc' }, rules: routeRules(MAX_ROUTE_MATCHES / perRule + 1, 0, perRule) }];
    expect(violationsOf(policy('MeshHTTPRoute', { targetRef: { kind: 'Mesh' }, to: manyMatches }))).toEqual([
      {
        field: `spec.to[0].rules[${MAX_ROUTE_MATCHES / perRule}].matches`,
        message: `brings the policy's route matches to ${MAX_ROUTE_MATCHES + perRule}: at most ${MAX_ROUTE_MATCHES} in all of spec.to[].rules[].matches`,
      },
    ]);
  });

  it('counts route rules only where they are lists of rules: another type keeps `rules` as given', () => {
    for (const rules of ['x', [null], [1, 'a']]) {
      expect(() => violationsOf(policy('MeshTimeout', { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, rules, default: {} }] }))).not.toThrow();
    }
  });

  it('refuses a MeshTrafficPermission whose from items would make too many subset combinations, before building any', () => {
    // 18 tag keys: 2^18 subsets, which took 17 s and 2.2 GB to build.
    let violations: { field: string; message: string }[] = [];
    const operations = countOperations(() => (violations = violationsOf(policy('MeshTrafficPermission', { targetRef: { kind: 'Mesh' }, from: distinctKeyFrom(18) }))));
    expect(violations).toEqual([
      {
        field: 'spec.from',
        message: `the targetRefs' tags make more than ${MAX_POLICY_SUBSET_COMBINATIONS} subset combinations (one rule per combination of the values of tag keys k0, k1, k10, k11, k12, k13, k14, k15 and 10 more): name fewer tag keys or values`,
      },
    ]);
    expect(operations).toBeLessThan(100_000);
  });

  it.skipIf(!kumaCasesPresent())('accepts every policy of Kuma\'s cases, with room to spare', () => {
    const documents = yamlFiles(KUMA_CASES_DIR).flatMap((file) => {
      try {
        return parseResourceDocuments(readFileSync(file, 'utf8')).map((document) => ({ file, document: document as { type?: string; spec?: PolicySpec } }));
      } catch {
        return []; // not resource YAML (goldens of Envoy config)
      }
    });
    const policies = documents.filter(({ document }) => POLICY_DESCRIPTORS.some(({ type }) => type === document?.type) && document.spec);
    expect(policies.length).toBeGreaterThan(50);
    for (const { file, document } of policies) {
      const violations = new ViolationList();
      checkInputBounds(POLICY_DESCRIPTORS.find(({ type }) => type === document.type)!, document.spec!, violations);
      expect({ file, violations: violations.violations }).toEqual({ file, violations: [] });
    }
  });
});

describe('a policy at the bounds', () => {
  it('MeshTimeout with the most to items: accepted, one rule per service, built in time linear in the items', () => {
    expect(violationsOf(policy('MeshTimeout', { targetRef: { kind: 'Mesh' }, to: timeoutTo(MAX_LIST_ITEMS) }))).toEqual([]);
    const rulesOf = (count: number) => {
      const timeouts = policyResource('MeshTimeout', 'many', { targetRef: { kind: 'Mesh' }, to: timeoutTo(count) } as PolicySpec);
      const context = buildMeshContext(meshResource(), [web], { policies: [timeouts] });
      let rules = computeProxyRules(context, web, 'MeshTimeout').rules.to;
      const operations = countOperations(() => (rules = computeProxyRules(buildMeshContext(meshResource(), [web], { policies: [timeouts] }), web, 'MeshTimeout').rules.to));
      return { rules, operations };
    };
    const full = rulesOf(MAX_LIST_ITEMS);
    expect(full.rules).toHaveLength(MAX_LIST_ITEMS);
    expect(ruleFor(full.rules, { 'kuma.io/service': 'svc-999' })?.conf).toEqual({ connectionTimeout: '1000s' });
    // Every item against every other (the old merge) would be 16 times the work of a quarter of them.
    expect(full.operations / rulesOf(MAX_LIST_ITEMS / 4).operations).toBeLessThan(6);
  });

  it('MeshHTTPRoute with the most rules: accepted, every rule kept in order, merged in time linear in the rules', () => {
    expect(violationsOf(policy('MeshHTTPRoute', { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'web' }, rules: routeRules(MAX_ROUTE_RULES) }] }))).toEqual([]);
    const merge = (count: number) => {
      const route = policyResource('MeshHTTPRoute', 'many', { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'web' }, rules: routeRules(count) }] } as PolicySpec);
      let rules: unknown[] = [];
      const operations = countOperations(() => {
        const [rule] = computeProxyRules(buildMeshContext(meshResource(), [web], { policies: [route] }), web, 'MeshHTTPRoute').rules.to;
        rules = (rule!.conf as { rules: unknown[] }).rules;
      });
      return { rules, operations };
    };
    const full = merge(MAX_ROUTE_RULES);
    expect(full.rules).toEqual(routeRules(MAX_ROUTE_RULES));
    expect(full.operations / merge(MAX_ROUTE_RULES / 4).operations).toBeLessThan(6);
  });

  it('MeshTrafficPermission at the subset combination bound: accepted, and decides each caller', () => {
    const keys = Math.log2(MAX_POLICY_SUBSET_COMBINATIONS);
    expect(violationsOf(policy('MeshTrafficPermission', { targetRef: { kind: 'Mesh' }, from: distinctKeyFrom(keys) }))).toEqual([]);
    const permission = policyResource('MeshTrafficPermission', 'keys', { targetRef: { kind: 'Mesh' }, from: distinctKeyFrom(keys) } as PolicySpec);
    const computed = computeProxyRules(buildMeshContext(meshResource(), [web], { policies: [permission] }), web, 'MeshTrafficPermission');
    const from = [...computed.rules.from.values()][0]!;
    // Every combination but the one naming none of the keys: no item contains it.
    expect(from).toHaveLength(MAX_POLICY_SUBSET_COMBINATIONS - 1);
    expect(ruleFor(from, { 'kuma.io/service': 'caller', k3: 'v3' })?.conf).toEqual({ action: 'Allow' });
    expect(ruleFor(from, { 'kuma.io/service': 'caller' })).toBeUndefined();
  });

  it('policies that pass one by one but together make too many subsets: the rules are not built, a warning says why', () => {
    const keys = Math.log2(MAX_POLICY_SUBSET_COMBINATIONS);
    const permissions = [0, 1].map((policyIndex) =>
      policyResource('MeshTrafficPermission', `keys-${policyIndex}`, {
        targetRef: { kind: 'Mesh' },
        from: distinctKeyFrom(keys).map((item, index) => ({ ...item, targetRef: { kind: 'MeshSubset', tags: { [`p${policyIndex}-k${index}`]: 'v' } } })),
      } as PolicySpec),
    );
    let computed: ReturnType<typeof computeProxyRules> | undefined;
    const operations = countOperations(() => (computed = computeProxyRules(buildMeshContext(meshResource(), [web], { policies: permissions }), web, 'MeshTrafficPermission')));
    expect(computed!.rules.from.size).toBe(0);
    expect(computed!.warnings).toEqual([expect.stringMatching(new RegExp(`^couldn't create From rules: the targetRefs' tags make more than ${MAX_PROXY_SUBSET_COMBINATIONS} subset combinations`))]);
    expect(operations).toBeLessThan(1_000_000);
  });
});

describe('counting subsets', () => {
  it('stops at a million pairs of intersecting subsets, before holding more of them', () => {
    // 1,500 different subsets of 11 tag keys that all agree: every pair intersects.
    const subsets = Array.from({ length: 1500 }, (_, index) =>
      Array.from({ length: 11 }, (_, bit) => bit).flatMap((bit) => ((index + 1) & (1 << bit) ? [{ key: `k${bit}`, value: 'v' }] : [])),
    );
    expect(() => planSubsets(subsets, true, MAX_PROXY_SUBSET_COMBINATIONS)).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^the targetRefs' tags make more than 1000000 pairs of intersecting subsets/) }),
    );
    // The first 127 name 7 keys between them: one clique, 2^7 combinations.
    expect(planSubsets(subsets.slice(0, 127), true, MAX_PROXY_SUBSET_COMBINATIONS).combinations).toBe(128);
  });
});

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) && !name.includes('golden') ? [path] : [];
  });
}
