import type { Finding } from '../../shared/analysis-types.js';
import type { PolicyResource } from '../policies/core/policy.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { ANALYZERS } from './analyzers.js';

/**
 * The findings about one policy in `context` (which holds it): what its PUT answer warns about. Only
 * the analyzers a policy of its type can concern run, each asked about this policy alone where it
 * can be (`analyzeFor`), and a finding counts when it names the policy, as its location or as the
 * resource that explains it.
 */
export function analyzePolicy(context: MeshContext, policy: PolicyResource): Finding[] {
  const names = (location: { type: string; name: string }) => location.type === policy.type && location.name === policy.meta.name;
  return ANALYZERS.filter((analyzer) => analyzer.concerns?.includes(policy.type)).flatMap((analyzer) =>
    analyzer.analyzeFor
      ? analyzer.analyzeFor(context, policy)
      : analyzer.analyze(context).filter((finding) => names(finding.location) || finding.related.some(names)),
  );
}

/** A finding as one line of the PUT answer's `warnings` (Kuma's field is a list of strings). */
export function findingAsWarning(finding: Finding): string {
  return `${finding.code}: ${finding.message}. Fix: ${finding.fix}`;
}
