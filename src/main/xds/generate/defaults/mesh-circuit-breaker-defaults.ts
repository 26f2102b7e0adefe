import type { ProtoJson } from '../../protocol/proto-json.js';

// What Kuma's MeshCircuitBreaker plugin writes on every cluster of a sidecar, with or without a
// MeshCircuitBreaker (pkg/plugins/policies/meshcircuitbreaker/plugin/v1alpha1/plugin.go,
// applyTrackRemaining): the default thresholds publish their remaining capacity as stats.
// A meshcircuitbreaker policy plugin will add its thresholds to these.

/** Cluster fields of the default circuit breaker. */
export function meshCircuitBreakerDefaultFields(): ProtoJson {
  return { circuit_breakers: { thresholds: [{ track_remaining: true }] } };
}
