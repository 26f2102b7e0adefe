// MeshTrafficPermission's conf (Kuma's api/v1alpha1/meshtrafficpermission.go), in its universal JSON form.
import type { RuleMatch } from '../core/policy.js';

/**
 * What a destination's proxy does with the callers an item names. `AllowWithShadowDeny` lets them
 * through and logs what a Deny would have refused (Envoy's shadow rules), to try a Deny safely.
 */
export const TRAFFIC_ACTIONS = ['Allow', 'Deny', 'AllowWithShadowDeny'] as const;
export type TrafficAction = (typeof TRAFFIC_ACTIONS)[number];

/**
 * A `default` block. A `from` item's is Kuma's Conf: one action, required by Kuma's validator.
 * A `rules` item's is Kuma's RuleConf: the callers (by SPIFFE ID or SNI) to deny, to allow while
 * shadow-denying, and to allow. One type holds both, as the rules engine hands a plugin one conf type.
 */
export interface MeshTrafficPermissionConf {
  action?: TrafficAction;
  deny?: RuleMatch[];
  allowWithShadowDeny?: RuleMatch[];
  allow?: RuleMatch[];
}
