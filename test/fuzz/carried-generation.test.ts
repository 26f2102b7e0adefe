import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { follows } from '../../src/main/xds/context/carried-memo.js';
import type { MeshContext } from '../../src/main/xds/context/mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import type { Proxy } from '../../src/main/xds/generate/proxy.js';
import { caseProxy } from '../kuma/support/policy-cases.js';
import { acceptedPolicyEdit, editedCase } from './accepted-policy-edits.js';
import { numRuns } from './run-counts.js';

/**
 * A tick after a change builds a new MeshContext that finds the last tick's objects (rules, shared
 * edits, canonical resources: carried-memo.ts). Whatever the change, what it gives a proxy must be
 * exactly what a generation from scratch gives: one of Kuma's plugin cases, one of its policies
 * changed at one random place (as the API accepted it), generated after the case as it was and
 * again after the change back, for both kinds of proxy.
 */

/** The proxy's whole generation as JSON: its resources, attributions and unapplied fields. */
function generated(context: MeshContext, proxy: Proxy): string {
  return JSON.stringify(generateProxy(context, { ...proxy, dataplane: context.dataplanesByName.get(proxy.dataplane.meta.name)! }));
}

describe('a tick that carries from the last one', () => {
  it('gives every proxy what a generation from scratch gives, after any policy edit and back', () => {
    fc.assert(
      fc.property(acceptedPolicyEdit, (edit) => {
        const { policyCase, before, after } = editedCase(edit);
        for (const kind of ['envoy', 'grpc'] as const) {
          const { proxy, context } = caseProxy(policyCase, kind);
          const build = (policies: readonly PolicyResource[]) => buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies });
          let last = build(before);
          generated(last, proxy);
          for (const policies of [after, before]) {
            const carried = follows(build(policies), last);
            const fromScratch = generated(build(policies), proxy);
            const found = generated(carried, proxy);
            if (found !== fromScratch) throw new Error(`${kind} proxy of ${edit.id}, ${edit.name} edited: the carried tick differs from a generation from scratch`);
            last = carried;
          }
        }
      }),
      { numRuns: numRuns(300, 20_000) },
    );
  });
});
