// The policies Kuma 2.14 creates with every new Mesh (pkg/defaults/mesh: mesh.go, meshtimeout.go,
// meshretry.go, meshcircuitbreaker.go), with Kuma's names and specs (durations as Go prints them); the
// manager adds the labels Kuma computes, as on every write. `skipCreatingInitialPolicies` lists types
// to leave out, or `*` for all.
import type { PolicyType } from '../../shared/policy-types.js';
import type { MeshSpec, PolicySpecJson, ResourceInput } from '../../shared/resources.js';

const SKIP_ALL = '*';

const MESH = { kind: 'Mesh' };

/** The timeouts on sidecars: the inbound side twice the outbound one, or disabled. */
const MESH_TIMEOUT_ALL: PolicySpecJson = {
  targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar'] },
  from: [
    {
      targetRef: MESH,
      default: {
        connectionTimeout: '10s',
        idleTimeout: '2h0m0s',
        http: { requestTimeout: '0s', streamIdleTimeout: '1h0m0s', maxStreamDuration: '0s' },
      },
    },
  ],
  to: [
    {
      targetRef: MESH,
      default: { connectionTimeout: '5s', idleTimeout: '1h0m0s', http: { requestTimeout: '15s', streamIdleTimeout: '30m0s' } },
    },
  ],
};

const MESH_GATEWAYS_TIMEOUT_ALL: PolicySpecJson = {
  targetRef: { kind: 'Mesh', proxyTypes: ['Gateway'] },
  from: [{ targetRef: MESH, default: { idleTimeout: '5m0s', http: { streamIdleTimeout: '5s', requestHeadersTimeout: '500ms' } } }],
  to: [{ targetRef: MESH, default: { idleTimeout: '1h0m0s', http: { streamIdleTimeout: '5s' } } }],
};

const MESH_CIRCUIT_BREAKER_ALL: PolicySpecJson = {
  targetRef: MESH,
  to: [{ targetRef: MESH, default: { connectionLimits: { maxConnections: 1024, maxPendingRequests: 1024, maxRequests: 1024, maxRetries: 3 } } }],
};

const RETRY = { numRetries: 5, perTryTimeout: '16s', backOff: { baseInterval: '25ms', maxInterval: '250ms' } };
const MESH_RETRY_ALL: PolicySpecJson = {
  targetRef: MESH,
  to: [{ targetRef: MESH, default: { tcp: { maxConnectAttempt: 5 }, http: RETRY, grpc: RETRY } }],
};

/** By Kuma's name prefix; the name is `<prefix>-<mesh>`. */
const INITIAL_POLICIES: readonly { prefix: string; type: PolicyType; spec: PolicySpecJson }[] = [
  { prefix: 'mesh-gateways-timeout-all', type: 'MeshTimeout', spec: MESH_GATEWAYS_TIMEOUT_ALL },
  { prefix: 'mesh-timeout-all', type: 'MeshTimeout', spec: MESH_TIMEOUT_ALL },
  { prefix: 'mesh-circuit-breaker-all', type: 'MeshCircuitBreaker', spec: MESH_CIRCUIT_BREAKER_ALL },
  { prefix: 'mesh-retry-all', type: 'MeshRetry', spec: MESH_RETRY_ALL },
];

/** The policies a new Mesh `mesh` with `spec` gets, as written inputs (each its own copy of the spec). */
export function initialPolicies(mesh: string, spec: MeshSpec): ResourceInput[] {
  const skipped = spec.skipCreatingInitialPolicies ?? [];
  if (skipped.includes(SKIP_ALL)) return [];
  return INITIAL_POLICIES.filter(({ type }) => !skipped.includes(type)).map(({ prefix, type, spec: policySpec }) => ({
    type,
    mesh,
    name: `${prefix}-${mesh}`,
    labels: {},
    spec: structuredClone(policySpec),
  }));
}

/** Whether the policy is one of those Kuma creates with the mesh (by its name, as Kuma names them). */
export function isInitialPolicy(type: PolicyType, name: string, mesh: string): boolean {
  return INITIAL_POLICIES.some((initial) => initial.type === type && `${initial.prefix}-${mesh}` === name);
}
