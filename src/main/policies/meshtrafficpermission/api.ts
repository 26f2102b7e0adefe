// MeshTrafficPermission's conf (Kuma's api/v1alpha1/meshtrafficpermission.go), in its universal JSON form.
import type { RuleMatch } from '../core/policy.js';

/**
 * What a destination's proxy does with the callers an item names. `AllowWithShadowDeny` lets them
 * through and logs what a Deny would have refused (Envoy's shadow rules), to try a Deny safely.
 */
export const TRAFFIC_ACTIONS = ['Allow', 'Deny', 'AllowWithShadowDeny'] as const;
export type TrafficAction = (typeof TRAFFIC_ACTIONS)[number];

/** A `default` block (Kuma's Conf): one action, required by Kuma's validator. */
export interface MeshTrafficPermissionConf {
  action?: TrafficAction;
}

/**
 * A `rules[].default` block (Kuma's RuleConf): who is denied, allowed, or allowed and logged as
 * denied, by the caller's SPIFFE ID and the SNI it asked for. Envoy checks every `deny` of every
 * rule before any `allow`, and denies a caller none names.
 */
export interface MeshTrafficPermissionRuleConf {
  deny?: RuleMatch[];
  allowWithShadowDeny?: RuleMatch[];
  allow?: RuleMatch[];
}
