// The warnings of a policy against its mesh as stored now (uncached: a Dataplane written a moment
// ago counts), for the PUT answer and the editors' check before Apply (policies/warnings/).
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { policyWarnings } from '../policies/warnings/policy-warnings.js';
import { ZONE_NAME } from '../resources/computed-labels.js';
import { buildMeshContext } from '../xds/context/build-mesh-context.js';

/** `policy`'s warnings in its mesh: built as the MeshContext cache builds a mesh, from the store as it is. */
export async function warningsNow(manager: ReadOnlyResourceManager, policy: PolicyResource): Promise<string[]> {
  const { mesh } = policy.meta;
  const [meshResource, dataplanes, routes] = await Promise.all([
    manager.get('Mesh', { mesh: '', name: mesh }),
    manager.list('Dataplane', { mesh }),
    manager.list('MeshHTTPRoute', { mesh }),
  ]);
  // The routes only: a top-level or `to` MeshHTTPRoute ref is resolved among them.
  const context = buildMeshContext(meshResource, dataplanes, { policies: routes as unknown as PolicyResource[], zone: ZONE_NAME });
  return policyWarnings(policy, context);
}
