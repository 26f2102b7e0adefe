// MeshCircuitBreaker written through the API, proven on both real xDS clients: connection limits
// on a server that holds calls, outlier detection on a service with a failing endpoint.
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startPolicyMesh, tally } from '../../support/policy-mesh.js';

// Named before mesh-circuit-breaker-all-default (maxRequests 1024 on every outbound), which would
// otherwise merge last and win: Kuma merges same-kind policies in descending name order.
const breaker = `
type: MeshCircuitBreaker
mesh: default
name: backend-breaker
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: held
      default:
        connectionLimits:
          maxRequests: 2
    - targetRef:
        kind: MeshService
        name: flaky
      default:
        outlierDetection:
          interval: 200ms
          baseEjectionTime: 60s
          maxEjectionPercent: 50
          detectors:
            failurePercentage:
              minimumHosts: 2
              requestVolume: 3
              threshold: 50
`;
const CALLS = 6;

describe('MeshCircuitBreaker on real data planes', () => {
  it('fails calls over maxRequests without reaching the server, and ejects an endpoint failing every call', async () => {
    let held: (() => void)[] = [];
    const mesh = await startPolicyMesh([
      { name: 'held', service: 'held', handler: (call, callback) => held.push(() => callback(null, `held: ${call.request}`)) },
      { name: 'good', service: 'flaky' },
      // INTERNAL, which mesh-retry-all-default does not retry: every call it gets fails.
      { name: 'bad', service: 'flaky', handler: (_call, callback) => callback({ code: status.INTERNAL, details: 'always failing' }) },
    ]);
    /** `CALLS` calls at once to the held server, released once it holds `expected` of them. */
    const heldCalls = async (client: (typeof mesh.clients)[number], expected: number) => {
      held = [];
      const calls = client.calls('held', CALLS, { deadlineMs: 20_000 });
      await eventually(() => expect(held.length, client.name).toBe(expected));
      const reached = held.length;
      for (const release of held) release();
      return { reached, counts: tally(await calls) };
    };
    for (const client of mesh.clients) expect(await heldCalls(client, CALLS), client.name).toEqual({ reached: CALLS, counts: { held: CALLS } });
    // Without outlier detection, round robin keeps sending to the bad endpoint (once both connections are up).
    for (const client of mesh.clients) await eventually(async () => expect(tally(await client.calls('flaky', 10))['INTERNAL'], client.name).toBeGreaterThan(0));

    await mesh.putPolicy('meshcircuitbreakers', 'backend-breaker', breaker);
    // The calls over the limit fail at once with UNAVAILABLE: the server only ever saw two.
    // python3-grpcio only: @grpc/grpc-js-xds 1.14.1 reads max_requests into the picker its
    // xds_cluster_impl policy builds when the child policy reports a new state
    // (load-balancer-xds-cluster-impl.js), so a limit changed on a READY cluster waits for the next
    // connectivity change. Measured: all 6 calls reached the server after the ACK.
    for (const client of mesh.clients.filter(({ name }) => name === 'python3-grpcio')) expect(await heldCalls(client, 2), client.name).toEqual({ reached: 2, counts: { held: 2, UNAVAILABLE: CALLS - 2 } });
    // Once an interval counted the bad endpoint's failures, it is ejected: every call reaches the good one.
    // python3-grpcio only: @grpc/grpc-js-xds 1.14.1 kept calling the bad endpoint for 20 s after
    // outlier detection was added to a live cluster (5 of 10 calls INTERNAL), though it ejects it
    // when the cluster has outlier detection from the start (src/main/policies/meshcircuitbreaker/grpc.test.ts).
    for (const client of mesh.clients.filter(({ name }) => name === 'python3-grpcio')) await eventually(async () => expect(tally(await client.calls('flaky', 10)), client.name).toEqual({ good: 10 }));
  });
});
