import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { DataplaneResource } from '../../src/shared/resources.js';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { follows } from '../../src/main/xds/context/carried-memo.js';
import type { MeshContext } from '../../src/main/xds/context/mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import type { Proxy } from '../../src/main/xds/generate/proxy.js';
import { casePolicyResources, caseProxy, type PolicyCase } from '../kuma/support/policy-cases.js';
import { acceptedPolicyEdit, CASES_WITH_POLICIES, editedCase } from './accepted-policy-edits.js';
import { numRuns } from './run-counts.js';

/**
 * A tick after a change builds a new MeshContext that finds the last tick's objects (rules, shared
 * edits, canonical resources: carried-memo.ts) and follows each proxy's resources that changed
 * (resource-changes.ts). Whatever the change, what it gives a proxy must be exactly what a
 * generation from scratch gives: one of Kuma's plugin cases, one of its policies changed at one
 * random place (as the API accepted it), or one of its other Dataplanes moved, copied or removed,
 * generated after the case as it was, after the change, and again after the change back, for both
 * kinds of proxy.
 */

/** The proxy's whole generation as JSON: its resources, attributions and unapplied fields. */
function generated(context: MeshContext, proxy: Proxy): string {
  return JSON.stringify(generateProxy(context, { ...proxy, dataplane: context.dataplanesByName.get(proxy.dataplane.meta.name)! }));
}

interface MeshInputs {
  dataplanes: readonly DataplaneResource[];
  policies: readonly PolicyResource[];
}

/** Throws, naming `change`, when a tick carried into `after` (and back) gives a proxy of the case another generation than from scratch. */
function expectCarriedAsFromScratch(policyCase: PolicyCase, before: (context: MeshContext) => MeshInputs, after: (context: MeshContext) => MeshInputs, change: string): void {
  for (const kind of ['envoy', 'grpc'] as const) {
    const { proxy, context } = caseProxy(policyCase, kind);
    const build = ({ dataplanes, policies }: MeshInputs) => buildMeshContext(context.mesh, dataplanes, { policies });
    let last = build(before(context));
    generated(last, proxy);
    for (const inputs of [after(context), before(context)]) {
      const carried = follows(build(inputs), last);
      const fromScratch = generated(build(inputs), proxy);
      if (generated(carried, proxy) !== fromScratch) throw new Error(`${kind} proxy of ${policyCase.id}, ${change}: the carried tick differs from a generation from scratch`);
      last = carried;
    }
  }
}

/** A case, one of its Dataplanes other than the generated proxy's (by index), and what happens to it. */
const dataplaneChange = fc.tuple(fc.constantFrom(...CASES_WITH_POLICIES), fc.nat(), fc.constantFrom('moved', 'copied', 'removed'));

const MOVED_ADDRESS = '10.200.0.9';

function withDataplaneChange(dataplanes: readonly DataplaneResource[], target: DataplaneResource, change: 'moved' | 'copied' | 'removed'): DataplaneResource[] {
  const moved = { ...target, spec: { ...target.spec, networking: { ...target.spec.networking, address: MOVED_ADDRESS } } };
  if (change === 'removed') return dataplanes.filter((dataplane) => dataplane !== target);
  if (change === 'copied') return [...dataplanes, { ...moved, meta: { ...target.meta, name: `${target.meta.name}-copy` } }];
  return dataplanes.map((dataplane) => (dataplane === target ? moved : dataplane));
}

describe('a tick that carries from the last one', () => {
  it('gives every proxy what a generation from scratch gives, after any policy edit and back', () => {
    fc.assert(
      fc.property(acceptedPolicyEdit, (edit) => {
        const { policyCase, before, after } = editedCase(edit);
        const dataplanes = (context: MeshContext) => [...context.dataplanesByName.values()];
        expectCarriedAsFromScratch(policyCase, (context) => ({ dataplanes: dataplanes(context), policies: before }), (context) => ({ dataplanes: dataplanes(context), policies: after }), `${edit.name} edited`);
      }),
      { numRuns: numRuns(300, 20_000) },
    );
  });

  it('gives every proxy what a generation from scratch gives, after another Dataplane moved, copied or removed and back', () => {
    fc.assert(
      fc.property(dataplaneChange, ([policyCase, which, change]) => {
        const policies = casePolicyResources(policyCase);
        const { proxy } = caseProxy(policyCase, 'envoy');
        const dataplanes = (context: MeshContext) => [...context.dataplanesByName.values()];
        const others = (context: MeshContext) => dataplanes(context).filter((dataplane) => dataplane.meta.name !== proxy.dataplane.meta.name);
        const changed = (context: MeshContext) => {
          const candidates = others(context);
          return candidates.length === 0 ? dataplanes(context) : withDataplaneChange(dataplanes(context), candidates[which % candidates.length]!, change);
        };
        expectCarriedAsFromScratch(policyCase, (context) => ({ dataplanes: dataplanes(context), policies }), (context) => ({ dataplanes: changed(context), policies }), `another Dataplane ${change}`);
      }),
      { numRuns: numRuns(100, 5_000) },
    );
  });
});
