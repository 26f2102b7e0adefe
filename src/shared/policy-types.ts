// Kuma's targetRef policy types meshdesk stores and applies. Types only: shared by main and renderer.

/** In Kuma's plugin order (each plugin's `Order` in its type descriptor). */
export const POLICY_TYPES = [
  'MeshHTTPRoute',
  'MeshTCPRoute',
  'MeshLoadBalancingStrategy',
  'MeshAccessLog',
  'MeshFaultInjection',
  'MeshRateLimit',
  'MeshTimeout',
  'MeshTrafficPermission',
  'MeshHealthCheck',
  'MeshCircuitBreaker',
  'MeshRetry',
] as const;

export type PolicyType = (typeof POLICY_TYPES)[number];

export function isPolicyType(type: string): type is PolicyType {
  return (POLICY_TYPES as readonly string[]).includes(type);
}

/** Which policy (and which item of it) produced a rule or set a config field. */
export interface PolicyOrigin {
  type: PolicyType;
  mesh: string;
  name: string;
  /** The item that contributed, as a path in the spec: `spec.to[0]`, `spec.rules[1]`, `spec.from[0]`. */
  item: string;
}
