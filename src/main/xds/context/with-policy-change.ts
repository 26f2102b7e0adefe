import type { PolicyType } from '../../../shared/policy-types.js';
import type { PolicyResource } from '../../policies/core/policy.js';
import { withPolicies } from './build-mesh-context.js';
import { besideOf } from './carried-memo.js';
import { everyPolicy, type MeshContext } from './mesh-context.js';

/** One policy written as given (created or replaced), or the policy of that type and name removed. */
export type PolicyChange = { apply: PolicyResource } | { remove: { type: PolicyType; name: string } };

/**
 * The context with one policy changed, for a preview or an analysis. Pure: the cached context stays
 * as it is, and nothing is written; the new context's hash says it differs, so nothing memoized per
 * context is reused wrongly.
 */
export function withPolicyChange(context: MeshContext, change: PolicyChange): MeshContext {
  const { type, name } = 'apply' in change ? { type: change.apply.type, name: change.apply.meta.name } : change.remove;
  const others = everyPolicy(context).filter((policy) => !(policy.type === type && policy.meta.name === name));
  const policies = 'apply' in change ? [...others, change.apply] : others;
  // Finds the tick's objects (see carriedMemo), without becoming what the next tick carries from.
  return besideOf(withPolicies(context, policies), context);
}
