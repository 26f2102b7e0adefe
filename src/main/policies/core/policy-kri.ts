import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { kriOfShortName } from '../../resources/kri.js';
import { policiesOf, type MeshContext } from '../../xds/context/mesh-context.js';

/**
 * The KRI of the policy behind a rule (its last origin), with the zone and namespace labels of the
 * stored policy: Kuma names Envoy objects a policy made by it (filters, RBAC actions).
 */
export function policyKri(shortName: string, origins: readonly PolicyOrigin[], context: Pick<MeshContext, 'policiesByType'>): string {
  const origin = origins.at(-1);
  const policy = origin && policiesOf(context, origin.type).find((each) => each.meta.name === origin.name);
  return kriOfShortName(shortName, policy?.meta ?? { mesh: origin?.mesh ?? '', name: origin?.name ?? '', labels: {} });
}
