// Policies aimed at Kuma's builtin gateways: meshdesk runs none (no MeshGateway resources, no
// gateway proxies of its own), so such a policy, or such a part of one, applies to nothing here.
import type { PolicyResource } from '../core/policy.js';

const NO_BUILTIN_GATEWAYS = 'meshdesk runs no builtin gateways (MeshGateway), so this applies to nothing here; it takes effect in a Kuma with builtin gateways';

export function builtinGatewayWarnings(policy: PolicyResource): string[] {
  const warnings: string[] = [];
  if (policy.spec.targetRef?.kind === 'MeshGateway') warnings.push(`spec.targetRef {kind: MeshGateway}: ${NO_BUILTIN_GATEWAYS}`);
  (policy.spec.to ?? []).forEach((item, index) => {
    if (item.targetRef.kind === 'MeshGateway') warnings.push(`spec.to[${index}].targetRef {kind: MeshGateway}: ${NO_BUILTIN_GATEWAYS}`);
  });
  return warnings;
}
