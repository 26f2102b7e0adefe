import fc from 'fast-check';
import { describe, it } from 'vitest';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import { caseProxy } from '../kuma/support/policy-cases.js';
import { acceptedPolicyEdit, editedCase } from './accepted-policy-edits.js';
import { numRuns } from './run-counts.js';

/**
 * Kuma's plugin cases (a proxy, its mesh and the policies the case applies), one policy changed at
 * one random place: whatever the API accepts, every policy plugin makes something of it for both
 * kinds of proxy. (Whether Envoy would take every value is the encoder's to say, by field, when the
 * snapshot is published; a plugin that throws says only where it broke.)
 */

describe('policies the API accepts', () => {
  it('are applied by every plugin to both kinds of proxy without failing', () => {
    fc.assert(
      fc.property(acceptedPolicyEdit, (edit) => {
        const { policyCase, after: policies } = editedCase(edit);
        for (const kind of ['envoy', 'grpc'] as const) {
          const { proxy, context } = caseProxy(policyCase, kind);
          generateProxy(buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }), proxy);
        }
      }),
      { numRuns: numRuns(1000, 100_000) },
    );
  });
});
