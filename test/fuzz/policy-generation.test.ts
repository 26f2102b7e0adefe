import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { validateResource } from '../../src/main/resources/validate.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import { caseProxy, casePolicyResources, policyCases } from '../kuma/support/policy-cases.js';
import { mutationOf, unexpectedValue } from './json-mutation.js';
import { numRuns } from './run-counts.js';

/**
 * Kuma's plugin cases (a proxy, its mesh and the policies the case applies), one policy changed at
 * one random place: whatever the API accepts, every policy plugin makes something of it for both
 * kinds of proxy. (Whether Envoy would take every value is the encoder's to say, by field, when the
 * snapshot is published; a plugin that throws says only where it broke.)
 */

const CASES = policyCases().filter((policyCase) => policyCase.json.policies.length > 0);

/** A case (by id, so that a counterexample reads short) and one of its policies changed, as the API accepted it. */
const accepted = fc
  .tuple(fc.constantFrom(...CASES), fc.nat(), fc.nat(), unexpectedValue)
  .map(([policyCase, which, where, value]) => {
    const target = casePolicyResources(policyCase)[which % policyCase.json.policies.length]!;
    try {
      const read = validateResource({ type: target.type, mesh: target.meta.mesh, name: target.meta.name, spec: mutationOf(target.spec, where, value) });
      return { id: policyCase.id, name: target.meta.name, spec: read.spec };
    } catch {
      return undefined; // refused: policy-confs.test.ts checks how
    }
  })
  .filter((input) => input !== undefined);

describe('policies the API accepts', () => {
  it('are applied by every plugin to both kinds of proxy without failing', () => {
    fc.assert(
      fc.property(accepted, ({ id, name, spec }) => {
        const policyCase = CASES.find((each) => each.id === id)!;
        const policies = casePolicyResources(policyCase).map((policy) => (policy.meta.name === name ? ({ ...policy, spec } as PolicyResource) : policy));
        for (const kind of ['envoy', 'grpc'] as const) {
          const { proxy, context } = caseProxy(policyCase, kind);
          generateProxy(buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }), proxy);
        }
      }),
      { numRuns: numRuns(1000, 100_000) },
    );
  });
});
