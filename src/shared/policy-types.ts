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

/**
 * What the policies did to one proxy's configuration as last generated (`GET
 * /meshes/{mesh}/dataplanes/{name}/_policy-effects`): every field a policy set, and every policy
 * field the proxy could not apply (gRPC implements only part of Envoy's API).
 */
export interface ProxyPolicyEffects {
  proxyId: string;
  /** The version per xDS type of the configuration these effects belong to. */
  versions: Record<string, string>;
  /** A field of a resource (a path into its proto3 JSON) and the policy items that set it; a later entry for the same field wins. */
  attributions: readonly { typeUrl: string; resource: string; path: string; origins: readonly PolicyOrigin[] }[];
  unapplied: readonly { policy: { type: PolicyType; name: string }; field: string; reason: string }[];
}

/** A resource as Kuma's inspect answers name it (api_common.Meta). */
export interface InspectMeta {
  type: string;
  mesh: string;
  name: string;
  labels: Record<string, string>;
}

/** One tag condition of a rule's subset (Kuma's RuleMatcher); `not` negates it. */
export interface InspectRuleMatcher {
  key: string;
  value: string;
  not: boolean;
}

/** A `to` or legacy `from` rule: the merged conf for the subset, and the policies merged into it. */
export interface InspectSubsetRule {
  conf: unknown;
  matchers: InspectRuleMatcher[];
  origin: InspectMeta[];
}

/** An inbound as Kuma's inspect answers name it. */
export interface InspectInbound {
  name?: string;
  port: number;
  tags: Record<string, string>;
}

/** An inbound rule: its conf (a list of one, as Kuma), its match when it has one, and the policy item. */
export interface InspectInboundRule {
  conf: unknown[];
  match?: { spiffeID?: { type: 'Exact' | 'Prefix'; value: string }; sni?: { type: 'Exact'; value: string } };
  origin: { resourceMeta: InspectMeta; ruleIndex: number }[];
}

/** `GET /meshes/{mesh}/dataplanes/{name}/_rules` (Kuma's InspectRulesResponse). */
export interface InspectRulesResponse {
  httpMatches: { hash: string; match: unknown }[];
  resource: InspectMeta;
  rules: {
    type: PolicyType;
    toRules: InspectSubsetRule[];
    toResourceRules: unknown[];
    fromRules: { inbound: InspectInbound; rules: InspectSubsetRule[] }[];
    inboundRules: { inbound: InspectInbound; rules: InspectInboundRule[] }[];
    warnings: string[];
  }[];
}
