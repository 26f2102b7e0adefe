import fc from 'fast-check';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { validateResource } from '../../src/main/resources/validate.js';
import { casePolicyResources, policyCases, type PolicyCase } from '../kuma/support/policy-cases.js';
import { mutationOf, unexpectedValue } from './json-mutation.js';

/** Kuma's plugin cases that apply a policy. */
export const CASES_WITH_POLICIES = policyCases().filter((policyCase) => policyCase.json.policies.length > 0);

/**
 * A case (by id, so that a counterexample reads short) and one of its policies changed at one
 * random place, as the API accepted it (refused edits are policy-confs.kuma.test.ts's to check).
 */
export const acceptedPolicyEdit = fc
  .tuple(fc.constantFrom(...CASES_WITH_POLICIES), fc.nat(), fc.nat(), unexpectedValue)
  .map(([policyCase, which, where, value]) => {
    const target = casePolicyResources(policyCase)[which % policyCase.json.policies.length]!;
    try {
      const read = validateResource({ type: target.type, mesh: target.meta.mesh, name: target.meta.name, spec: mutationOf(target.spec, where, value) });
      return { id: policyCase.id, name: target.meta.name, spec: read.spec };
    } catch {
      return undefined;
    }
  })
  .filter((edit) => edit !== undefined);

export type AcceptedPolicyEdit = typeof acceptedPolicyEdit extends fc.Arbitrary<infer T> ? T : never;

/** The edited case and its policies, the edited one in its place. */
export function editedCase({ id, name, spec }: AcceptedPolicyEdit): { policyCase: PolicyCase; before: PolicyResource[]; after: PolicyResource[] } {
  const policyCase = CASES_WITH_POLICIES.find((each) => each.id === id)!;
  const before = casePolicyResources(policyCase);
  const after = before.map((policy) => (policy.meta.name === name ? ({ ...policy, spec } as PolicyResource) : policy));
  return { policyCase, before, after };
}
