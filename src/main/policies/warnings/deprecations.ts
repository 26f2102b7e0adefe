// Kuma v2.14.3's deprecation warnings, which its API answers a PUT with (`{"warnings": [...]}`) and
// still stores the policy: each type's Deprecations() (pkg/plugins/policies/<type>/api/v1alpha1/deprecated.go),
// in Kuma's order: the type's own, then the top-level targetRef's (MeshHealthCheck and
// MeshLoadBalancingStrategy the other way round, as Kuma has them).
import type { PolicyType } from '../../../shared/policy-types.js';
import type { PolicyResource } from '../core/policy.js';
import type { TargetRef } from '../core/target-ref.js';

const FROM_USE_RULES = "'from' field is deprecated, use 'rules' instead";
const OTEL_ENDPOINT = 'openTelemetry.endpoint is deprecated, use openTelemetry.backendRef with a MeshOpenTelemetryBackend resource instead';

type Json = Record<string, any>;

/** Kuma's TopLevelTargetRefDeprecations. */
function topLevelTargetRef(ref: TargetRef | undefined): string[] {
  if (ref === undefined) return [];
  if (ref.kind === 'MeshService' || ref.kind === 'MeshServiceSubset' || ref.kind === 'MeshSubset') {
    return [`${ref.kind} value for 'targetRef.kind' is deprecated, use Dataplane with labels instead`];
  }
  if (ref.kind === 'MeshHTTPRoute') return ["MeshHTTPRoute value for 'targetRef.kind' is deprecated, use MeshHTTPRoute in spec.to[].targetRef"];
  return [];
}

const items = (spec: Json, section: 'to' | 'from' | 'rules'): Json[] => (Array.isArray(spec[section]) ? spec[section] : []);

function fromDeprecated(message: string) {
  return (spec: Json): string[] => (items(spec, 'from').length > 0 ? [message] : []);
}

/** Each type's own deprecations, before the top-level targetRef's. */
const OWN: Partial<Record<PolicyType, (spec: Json) => string[]>> = {
  MeshTimeout: fromDeprecated(FROM_USE_RULES),
  MeshCircuitBreaker: fromDeprecated(FROM_USE_RULES),
  MeshFaultInjection: fromDeprecated("'from' field is deprecated, use 'rules' with SPIFFE-based 'matches' instead"),
  MeshTrafficPermission: (spec) => [
    ...fromDeprecated("'from' field is deprecated and will be removed in 3.0, use 'rules' with MeshIdentity (spiffeId) instead")(spec),
    ...items(spec, 'from')
      .filter((item) => item.targetRef?.kind === 'MeshService')
      .map(() => "MeshService value for 'from[].targetRef.kind' is deprecated, use MeshSubset with 'kuma.io/service' instead"),
  ],
  MeshAccessLog: (spec) => [...fromDeprecated(FROM_USE_RULES)(spec), ...(hasInlineOtelEndpoint(spec) ? [OTEL_ENDPOINT] : [])],
  MeshRateLimit: (spec) => [
    ...fromDeprecated(FROM_USE_RULES)(spec),
    ...(['from', 'rules', 'to'] as const).flatMap((section) =>
      items(spec, section)
        .map((item, index) => ({ item, index }))
        // Kuma checks `from` items only when there are any (the same condition as its 'from' warning).
        .filter(({ item }) => (item.default?.local?.http?.onRateLimit?.status ?? 400) < 400)
        .map(({ index }) => `'spec.${section}[${index}].default.local.http.requestRate.status' must be 400 or higher. Please update your configuration.`),
    ),
  ],
};

/** Types whose own deprecations Kuma lists after the top-level targetRef's. */
const AFTER_TOP_LEVEL: Partial<Record<PolicyType, (spec: Json) => string[]>> = {
  MeshHealthCheck: (spec) =>
    items(spec, 'to')
      .filter((item) => item.default?.healthyPanicThreshold !== undefined)
      .map(
        () =>
          "healthyPanicThreshold for 'to[].default' is deprecated. The setting has been moved to MeshCircuitBreaker policy, please use MeshCircuitBreaker policy instead.",
      ),
};

/** MeshLoadBalancingStrategy's hash policies inside the load balancer, before the top-level targetRef's. */
function loadBalancerHashPolicies(spec: Json): string[] {
  return items(spec, 'to').flatMap((item, index) => {
    const loadBalancer = item.default?.loadBalancer;
    const field = loadBalancer?.type === 'RingHash' ? 'ringHash' : loadBalancer?.type === 'Maglev' ? 'maglev' : undefined;
    const hashPolicies = field === undefined ? undefined : loadBalancer[field]?.hashPolicies;
    if (!Array.isArray(hashPolicies)) return [];
    return [
      `configuration 'spec.to[${index}].default.loadBalancer.${field}.hashPolicies' is deprecated, use 'spec.to[${index}].default.hashPolicies' instead`,
      ...hashPolicies
        .map((policy: Json, position: number) => ({ policy, position }))
        .filter(({ policy }) => policy?.type === 'SourceIP')
        .map(({ position }) => `SourceIP type for 'spec.to[${index}].default.loadBalancer.${field}.hashPolicies[${position}].type' is deprecated, use Connection instead`),
    ];
  });
}

function hasInlineOtelEndpoint(spec: Json): boolean {
  return (['to', 'from', 'rules'] as const).some((section) =>
    items(spec, section).some((item) =>
      (Array.isArray(item.default?.backends) ? item.default.backends : []).some(
        (backend: Json) => typeof backend?.openTelemetry?.endpoint === 'string' && backend.openTelemetry.endpoint !== '' && backend.openTelemetry.backendRef === undefined,
      ),
    ),
  );
}

/** The deprecation warnings Kuma gives for `policy`, in Kuma's order. */
export function deprecationWarnings(policy: Pick<PolicyResource, 'type' | 'spec'>): string[] {
  const spec = policy.spec as Json;
  const topLevel = topLevelTargetRef(policy.spec.targetRef);
  if (policy.type === 'MeshLoadBalancingStrategy') return [...loadBalancerHashPolicies(spec), ...topLevel];
  return [...(OWN[policy.type]?.(spec) ?? []), ...topLevel, ...(AFTER_TOP_LEVEL[policy.type]?.(spec) ?? [])];
}
