// Everything the API warns about a policy it stores (the PUT answer's `warnings`, Kuma's field) and
// the editors show before Apply: Kuma's deprecations first, in Kuma's words, then meshdesk's own.
import type { MeshContext } from '../../xds/context/mesh-context.js';
import type { PolicyResource } from '../core/policy.js';
import { builtinGatewayWarnings } from './builtin-gateway.js';
import { deprecationWarnings } from './deprecations.js';
import { selectsNothingWarnings } from './selects-nothing.js';

/** `context`: the policy's mesh as it is now (the policy itself need not be in it). */
export function policyWarnings(policy: PolicyResource, context: MeshContext): string[] {
  return [...deprecationWarnings(policy), ...builtinGatewayWarnings(policy), ...selectsNothingWarnings(policy, context)];
}
