import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { validateResource } from '../../src/main/resources/validate.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { follows } from '../../src/main/xds/context/carried-memo.js';
import type { MeshContext } from '../../src/main/xds/context/mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import type { Proxy } from '../../src/main/xds/generate/proxy.js';
import { caseProxy, casePolicyResources, policyCases } from '../kuma/support/policy-cases.js';
import { mutationOf, unexpectedValue } from './json-mutation.js';
import { numRuns } from './run-counts.js';

/**
 * A tick after a change builds a new MeshContext that finds the last tick's objects (rules, shared
 * edits, canonical resources: carried-memo.ts). Whatever the change, what it gives a proxy must be
 * exactly what a generation from scratch gives: one of Kuma's plugin cases, one of its policies
 * changed at one random place (as the API accepted it), generated after the case as it was and
 * again after the change back, for both kinds of proxy.
 */

const CASES = policyCases().filter((policyCase) => policyCase.json.policies.length > 0);

const edited = fc
  .tuple(fc.constantFrom(...CASES), fc.nat(), fc.nat(), unexpectedValue)
  .map(([policyCase, which, where, value]) => {
    const target = casePolicyResources(policyCase)[which % policyCase.json.policies.length]!;
    try {
      const read = validateResource({ type: target.type, mesh: target.meta.mesh, name: target.meta.name, spec: mutationOf(target.spec, where, value) });
      return { id: policyCase.id, name: target.meta.name, spec: read.spec };
    } catch {
      return undefined; // refused: nothing reaches a proxy
    }
  })
  .filter((input) => input !== undefined);

/** The proxy's whole generation as JSON: its resources, attributions and unapplied fields. */
function generated(context: MeshContext, proxy: Proxy): string {
  return JSON.stringify(generateProxy(context, { ...proxy, dataplane: context.dataplanesByName.get(proxy.dataplane.meta.name)! }));
}

describe('a tick that carries from the last one', () => {
  it('gives every proxy what a generation from scratch gives, after any policy edit and back', () => {
    fc.assert(
      fc.property(edited, ({ id, name, spec }) => {
        const policyCase = CASES.find((each) => each.id === id)!;
        const before = casePolicyResources(policyCase);
        const after = before.map((policy) => (policy.meta.name === name ? ({ ...policy, spec } as PolicyResource) : policy));
        for (const kind of ['envoy', 'grpc'] as const) {
          const { proxy, context } = caseProxy(policyCase, kind);
          const build = (policies: readonly PolicyResource[]) => buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies });
          let last = build(before);
          generated(last, proxy);
          for (const policies of [after, before]) {
            const carried = follows(build(policies), last);
            const fromScratch = generated(build(policies), proxy);
            const found = generated(carried, proxy);
            if (found !== fromScratch) throw new Error(`${kind} proxy of ${id}, ${name} edited: the carried tick differs from a generation from scratch`);
            last = carried;
          }
        }
      }),
      { numRuns: numRuns(300, 20_000) },
    );
  });
});
