// Kuma v2.14.3's Deprecations() per policy type (pkg/plugins/policies/*/api/v1alpha1/deprecated.go), in its words and order.
import { describe, expect, it } from 'vitest';
import type { PolicyType } from '../../../shared/policy-types.js';
import type { PolicySpec } from '../core/policy.js';
import { deprecationWarnings } from './deprecations.js';

const warningsOf = (type: PolicyType, spec: object) => deprecationWarnings({ type, spec: spec as PolicySpec });
const MESH_SERVICE_TOP = "MeshService value for 'targetRef.kind' is deprecated, use Dataplane with labels instead";

describe("Kuma's deprecation warnings", () => {
  it('names a deprecated top-level kind for every type, and nothing for Mesh or Dataplane', () => {
    expect(warningsOf('MeshRetry', { targetRef: { kind: 'MeshService', name: 'a' } })).toEqual([MESH_SERVICE_TOP]);
    expect(warningsOf('MeshRetry', { targetRef: { kind: 'MeshServiceSubset', name: 'a' } })).toEqual([
      "MeshServiceSubset value for 'targetRef.kind' is deprecated, use Dataplane with labels instead",
    ]);
    expect(warningsOf('MeshTCPRoute', { targetRef: { kind: 'MeshHTTPRoute', name: 'r' } })).toEqual([
      "MeshHTTPRoute value for 'targetRef.kind' is deprecated, use MeshHTTPRoute in spec.to[].targetRef",
    ]);
    expect(warningsOf('MeshTimeout', { targetRef: { kind: 'Dataplane', labels: { app: 'a' } } })).toEqual([]);
    expect(warningsOf('MeshTimeout', {})).toEqual([]);
  });

  it("puts a type's own 'from' warning before the top-level one", () => {
    const spec = { targetRef: { kind: 'MeshService', name: 'a' }, from: [{ targetRef: { kind: 'Mesh' }, default: {} }] };
    expect(warningsOf('MeshTimeout', spec)).toEqual(["'from' field is deprecated, use 'rules' instead", MESH_SERVICE_TOP]);
    expect(warningsOf('MeshFaultInjection', spec)).toEqual(["'from' field is deprecated, use 'rules' with SPIFFE-based 'matches' instead", MESH_SERVICE_TOP]);
    expect(warningsOf('MeshRetry', spec)).toEqual([MESH_SERVICE_TOP]);
  });

  it('MeshRateLimit: each status below 400, by section and index', () => {
    const local = (status: number) => ({ local: { http: { onRateLimit: { status } } } });
    expect(warningsOf('MeshRateLimit', { from: [{ targetRef: { kind: 'Mesh' }, default: local(302) }], to: [{ targetRef: { kind: 'Mesh' }, default: local(429) }, { targetRef: { kind: 'Mesh' }, default: local(200) }] })).toEqual([
      "'from' field is deprecated, use 'rules' instead",
      "'spec.from[0].default.local.http.requestRate.status' must be 400 or higher. Please update your configuration.",
      "'spec.to[1].default.local.http.requestRate.status' must be 400 or higher. Please update your configuration.",
    ]);
  });

  it('MeshHealthCheck lists healthyPanicThreshold after the top-level kind, MeshLoadBalancingStrategy its hash policies before', () => {
    expect(warningsOf('MeshHealthCheck', { targetRef: { kind: 'MeshService', name: 'a' }, to: [{ targetRef: { kind: 'Mesh' }, default: { healthyPanicThreshold: 50 } }] })).toEqual([
      MESH_SERVICE_TOP,
      "healthyPanicThreshold for 'to[].default' is deprecated. The setting has been moved to MeshCircuitBreaker policy, please use MeshCircuitBreaker policy instead.",
    ]);
    const ringHash = { loadBalancer: { type: 'RingHash', ringHash: { hashPolicies: [{ type: 'Header' }, { type: 'SourceIP' }] } } };
    expect(warningsOf('MeshLoadBalancingStrategy', { targetRef: { kind: 'MeshService', name: 'a' }, to: [{ targetRef: { kind: 'Mesh' }, default: ringHash }] })).toEqual([
      "configuration 'spec.to[0].default.loadBalancer.ringHash.hashPolicies' is deprecated, use 'spec.to[0].default.hashPolicies' instead",
      "SourceIP type for 'spec.to[0].default.loadBalancer.ringHash.hashPolicies[1].type' is deprecated, use Connection instead",
      MESH_SERVICE_TOP,
    ]);
  });

  it('MeshAccessLog: an OpenTelemetry backend by endpoint rather than backendRef', () => {
    const backends = [{ openTelemetry: { endpoint: 'collector:4317' } }];
    expect(warningsOf('MeshAccessLog', { rules: [{ default: { backends } }] })).toEqual([
      'openTelemetry.endpoint is deprecated, use openTelemetry.backendRef with a MeshOpenTelemetryBackend resource instead',
    ]);
  });
});
