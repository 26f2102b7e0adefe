// MeshTrafficPermission's conf (Kuma's api/v1alpha1/meshtrafficpermission.go), in its universal JSON form.

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
