// The rules Kuma v2.14.3 computes from real policies, compared with meshdesk's rules engine.
import { describe, expect, it } from 'vitest';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { computeProxyRules } from '../../src/main/policies/core/proxy-rules.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { caseProxy, policyCases } from './support/policy-cases.js';

interface ExpectedRules {
  toRules: { subset: { key: string; value: string; not?: boolean }[] | null; conf: unknown; origin: { mesh: string; name: string }[] }[];
}

const rulesOnlyCases = policyCases().filter((policyCase) => policyCase.json.expectedRules);

describe('rules computed as Kuma computes them', () => {
  it('has the rules-only cases to check', () => {
    expect(rulesOnlyCases.map(({ id }) => id)).toContain('meshtcproute/matched-policies-basic');
  });

  for (const policyCase of rulesOnlyCases) {
    it(policyCase.id, () => {
      const { proxy, context } = caseProxy(policyCase);
      const policies: PolicyResource[] = policyCase.json.policies.map(({ type, name, mesh, spec }) => ({
        type,
        meta: { mesh, name, version: 1, creationTime: '2026-01-01T00:00:00.000Z', modificationTime: '2026-01-01T00:00:00.000Z', labels: {} },
        spec,
      }));
      const withPolicies = buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies });
      const expected = policyCase.json.expectedRules as ExpectedRules;

      const { rules } = computeProxyRules(withPolicies, proxy.dataplane, policyCase.json.policyType);

      expect(
        rules.to.map(({ subset, conf, origins }) => ({
          subset,
          conf,
          // Kuma names the policies (each once); meshdesk also names the item.
          origin: [...new Map(origins.map(({ mesh, name }) => [`${mesh}/${name}`, { mesh, name }])).values()],
        })),
      ).toEqual(expected.toRules.map(({ subset, conf, origin }) => ({ subset: subset ?? [], conf, origin })));
    });
  }
});
