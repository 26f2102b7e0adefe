import fc from 'fast-check';
import { describe, it } from 'vitest';
import { XDS_TYPE_URLS } from '../../src/main/xds/protocol/type-urls.js';
import { encodeResource } from '../../src/main/xds/protocol/encode.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import { caseProxy } from '../kuma/support/policy-cases.js';
import { acceptedPolicyEdit, editedCase } from './accepted-policy-edits.js';
import { LONG_TIMEOUT_MS, numRuns } from './run-counts.js';

/**
 * Any accepted policy encodes: Kuma's plugin cases, one policy changed at one random place, as the
 * API accepted it; every resource the plugins then make, for both kinds of proxy, is one the
 * encoder takes (Envoy's proto types and validate rules). A value Kuma accepts but Envoy cannot
 * take is refused by the API, naming its field, rather than withheld from the proxy later.
 */
describe('any accepted policy', () => {
  it(
    'encodes, for both kinds of proxy',
    () => {
      fc.assert(
        fc.property(acceptedPolicyEdit, (edit) => {
          const { policyCase, after: policies } = editedCase(edit);
          for (const kind of ['envoy', 'grpc'] as const) {
            const { proxy, context } = caseProxy(policyCase, kind);
            const { resources } = generateProxy(buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }), proxy);
            for (const typeUrl of XDS_TYPE_URLS) for (const { resource } of resources[typeUrl]) encodeResource(typeUrl, resource);
          }
        }),
        { numRuns: numRuns(100, 100_000) },
      );
    },
    LONG_TIMEOUT_MS,
  );
});
