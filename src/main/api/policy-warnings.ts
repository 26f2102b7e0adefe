// The warnings of a policy against its mesh as stored now (uncached: a Dataplane written a moment
// ago counts), for the PUT answer and the editors' check before Apply: Kuma's deprecations and
// meshdesk's own (policies/warnings/), then the mesh analysis's findings about the policy (analysis/).
import type { Finding } from '../../shared/analysis-types.js';
import { POLICY_TYPES } from '../../shared/policy-types.js';
import { analyzePolicy, findingAsWarning } from '../analysis/analyze-policy.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { policyWarnings } from '../policies/warnings/policy-warnings.js';
import { ZONE_NAME } from '../resources/computed-labels.js';
import { buildMeshContext } from '../xds/context/build-mesh-context.js';
import { withPolicyChange } from '../xds/context/with-policy-change.js';

/** What to tell about a policy: every warning as text (the PUT answer's), and the analysis's findings among them. */
export interface PolicyCheck {
  warnings: string[];
  findings: Finding[];
}

/** `policy`'s warnings in its mesh: built as the MeshContext cache builds a mesh, from the store as it is, with `policy` as given. */
export async function checkPolicyNow(manager: ReadOnlyResourceManager, policy: PolicyResource): Promise<PolicyCheck> {
  const { mesh } = policy.meta;
  const [meshResource, dataplanes, ...policyLists] = await Promise.all([
    manager.get('Mesh', { mesh: '', name: mesh }),
    manager.list('Dataplane', { mesh }),
    ...POLICY_TYPES.map((type) => manager.list(type, { mesh })),
  ]);
  const stored = buildMeshContext(meshResource, dataplanes, { policies: policyLists.flat() as unknown as PolicyResource[], zone: ZONE_NAME });
  const context = withPolicyChange(stored, { apply: policy });
  const findings = analyzePolicy(context, policy);
  return { warnings: [...policyWarnings(policy, context), ...findings.map(findingAsWarning)], findings };
}
