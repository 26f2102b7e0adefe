import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import { kriOfShortName } from '../../resources/kri.js';
import type { PolicyResource } from './policy.js';

/** The stored policy of a type and name (EnvoyResources.policyNamed, a read its plugin's replay checks). */
export type PolicyLookup = (type: PolicyType, name: string) => PolicyResource | undefined;

/**
 * The KRI of the policy behind a rule (its last origin), with the zone and namespace labels of the
 * stored policy: Kuma names Envoy objects a policy made by it (filters, RBAC actions).
 */
export function policyKri(shortName: string, origins: readonly PolicyOrigin[], policyNamed: PolicyLookup): string {
  const origin = origins.at(-1);
  const policy = origin && policyNamed(origin.type, origin.name);
  return kriOfShortName(shortName, policy?.meta ?? { mesh: origin?.mesh ?? '', name: origin?.name ?? '', labels: {} });
}
