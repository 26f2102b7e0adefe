// The rules Kuma v2.14.3 computes from real policies, compared with meshdesk's rules engine.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { computeProxyRules } from '../../src/main/policies/core/proxy-rules.js';
import type { ProxyRules } from '../../src/main/policies/core/rules.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { caseProxy, policyCases, rulesAsTested, type PolicyCase } from './support/policy-cases.js';

interface ExpectedRules {
  toRules: { subset: { key: string; value: string; not?: boolean }[] | null; conf: unknown; origin: { mesh: string; name: string }[] }[];
}

/** The case's proxy, in a context holding the case's policies. */
function caseWithPolicies(policyCase: PolicyCase) {
  const { proxy, context } = caseProxy(policyCase);
  const policies: PolicyResource[] = policyCase.json.policies.map(({ type, name, mesh, spec }) => ({
    type,
    meta: { mesh, name, version: 1, creationTime: '2026-01-01T00:00:00.000Z', modificationTime: '2026-01-01T00:00:00.000Z', labels: {} },
    spec,
  }));
  return { proxy, context: buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }) };
}

/** Rules without their origins (rulesAsTested attributes every rule to the case's first policy), confs as JSON. */
function comparable(rules: ProxyRules<unknown>) {
  const json = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as unknown;
  return {
    to: rules.to.map(({ subset, conf }) => ({ subset, conf: json(conf) })),
    from: [...rules.from].map(([key, list]) => [key, list.map(({ subset, conf }) => ({ subset, conf: json(conf) }))]),
    inbound: [...rules.inbound].map(([key, list]) => [key, list.map(({ match, conf }) => ({ ...(match && { match }), conf: json(conf) }))]),
  };
}

/**
 * Cases whose `rulesAsTested` is a Go literal of the plugin test that the case's (reconstructed)
 * policies do not produce as Kuma computes rules: not differences of meshdesk from Kuma.
 */
const LITERALS_NO_POLICY_PRODUCES: Readonly<Record<string, string>> = {
  'meshaccesslog/outbound-file-backend-json-format': 'the literal conf has no format `type`; the policy, valid for Kuma, says `type: Json`',
  'meshhttproute/basic': 'the literal rule has an empty subset; the policy, aimed at MeshService backend, gives kuma.io/service=backend',
  'meshhttproute/match-priority': 'as meshhttproute/basic: an empty subset for a policy aimed at MeshService backend',
  'meshloadbalancingstrategy/basic': 'three Mesh policies merge name-descending (payment, frontend, backend); the literal lists backend first',
  'meshloadbalancingstrategy/locality-aware-basic': 'as meshloadbalancingstrategy/basic: the literal lists its rules in another order',
  'meshloadbalancingstrategy/locality-aware-no-cross-zone': 'as meshloadbalancingstrategy/basic: the literal lists its rules in another order',
  'meshratelimit/spiffeid-and-catch-all': 'Kuma sorts a spiffeID rule before the catch-all; the literal hands the catch-all first',
  'meshtrafficpermission/legacy-from-allow': "the literal keys its rules by 192.168.0.1:8080, not by the case proxy's inbound",
  'meshtrafficpermission/rules-deny-allow-shadow': "the literal keys its rules by 192.168.0.1:8080, not by the case proxy's inbound",
};

describe('rules computed as Kuma computes them', () => {
  const rulesOnlyCases = policyCases().filter((policyCase) => policyCase.json.expectedRules);

  it('has the rules-only cases to check', () => {
    expect(rulesOnlyCases.map(({ id }) => id)).toContain('meshtcproute/matched-policies-basic');
  });

  for (const policyCase of rulesOnlyCases) {
    it(policyCase.id, () => {
      const { proxy, context } = caseWithPolicies(policyCase);
      const expected = policyCase.json.expectedRules as ExpectedRules;

      const { rules } = computeProxyRules(context, proxy.dataplane, policyCase.json.policyType);

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

describe("the plugin cases' policies give the rules Kuma's tests hand the plugins", () => {
  const cases = policyCases().filter((policyCase) => policyCase.json.rulesAsTested);

  for (const policyCase of cases) {
    const literal = LITERALS_NO_POLICY_PRODUCES[policyCase.id];
    it(`${policyCase.id}${literal ? ' (differs: the literal)' : ''}`, () => {
      const { proxy, context } = caseWithPolicies(policyCase);

      const computed = comparable(computeProxyRules(context, proxy.dataplane, policyCase.json.policyType).rules);
      const asTested = comparable(rulesAsTested(policyCase));

      // A listed case must still differ, so that the list stays true.
      if (literal) expect(isDeepStrictEqual(computed, asTested)).toBe(false);
      else expect(computed).toEqual(asTested);
    });
  }

  it('lists only cases there are', () => {
    expect(Object.keys(LITERALS_NO_POLICY_PRODUCES).filter((id) => !cases.some((policyCase) => policyCase.id === id))).toEqual([]);
  });
});
