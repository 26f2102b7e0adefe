import type { PolicyConfHooks } from '../core/policy-conf-hooks.js';
import type { ToItem } from '../core/policy.js';

/**
 * A MeshTCPRoute `to` item contributes only its FIRST rule (Kuma's To.GetDefault); an item
 * without rules routes to its own targetRef with weight 1.
 */
export const meshTCPRouteConfHooks: PolicyConfHooks = {
  toItemConf: (item: ToItem) => item.rules?.[0] ?? { default: { backendRefs: [{ ...item.targetRef, weight: 1 }] } },
};
