import type { Finding, FindingSeverity } from '../../shared/analysis-types.js';
import type { PolicyType } from '../../shared/policy-types.js';
import type { PolicyResource } from '../policies/core/policy.js';
import type { MeshContext } from '../xds/context/mesh-context.js';

/**
 * One check of a mesh (as istioctl's analyzers): it reads the MeshContext and the rules that
 * generation computes from it, never a second reading of Kuma's rules, and says what will not work.
 */
export interface Analyzer {
  /** The stable code of every finding it makes (`MD0002`). */
  code: string;
  severity: FindingSeverity;
  /** One line for docs/analysis.md and the Analysis view's legend. */
  title: string;
  analyze(context: MeshContext): Finding[];
  /**
   * The policy types whose write can change its findings: a policy's PUT answer carries the findings
   * about it of these analyzers (analyze-policy.ts). None: its findings come from elsewhere.
   */
  concerns?: readonly PolicyType[];
  /** The findings about one policy, when that costs less than analyzing the mesh. */
  analyzeFor?(context: MeshContext, policy: PolicyResource): Finding[];
}

/** The proxy id of a Dataplane of the context's mesh, as the Proxies view and the ADS node id name it. */
export function proxyIdOf(context: MeshContext, dataplane: string): string {
  return `${context.mesh.meta.name}.${dataplane}`;
}
