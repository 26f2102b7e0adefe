// MeshCircuitBreaker written through the API, proven on both real xDS clients: connection limits
// on a server that holds calls, outlier detection on a service with a failing endpoint.
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startPolicyMesh, tally, type TimedCallResult } from '../../support/policy-mesh.js';

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
  it('fails calls over maxRequests without reaching the server, ejects an endpoint failing every call, and neither once deleted', async () => {
    let held: (() => void)[] = [];
    const mesh = await startPolicyMesh([
      { name: 'held', service: 'held', handler: (call, callback) => held.push(() => callback(null, `held: ${call.request}`)) },
      { name: 'good', service: 'flaky' },
      // INTERNAL, which mesh-retry-all-default does not retry: every call it gets fails.
      { name: 'bad', service: 'flaky', handler: (_call, callback) => callback({ code: status.INTERNAL, details: 'always failing' }) },
    ]);
    /**
     * `CALLS` calls to the held server, released once it holds what it will. C-core's start at once,
     * and the server holds `expected` of them. grpc-js-xds counts a call against max_requests only
     * once it started, a promise after its pick (load-balancing-call.js): calls picked in one burst
     * would all pass, so each of its calls starts once the one before is held or has failed.
     */
    const heldCalls = async (client: (typeof mesh.clients)[number], expected: number) => {
      held = [];
      const started: Promise<TimedCallResult[]>[] = [];
      if (client.name === 'python3-grpcio') {
        started.push(client.calls('held', CALLS, { deadlineMs: 20_000 }));
        await eventually(() => expect(held.length, client.name).toBe(expected));
      } else {
        let failed = 0;
        for (let call = 1; call <= CALLS; call++) {
          const calls = client.calls('held', 1, { deadlineMs: 20_000 });
          started.push(calls);
          void calls.then((results) => (failed += results.filter(({ ok }) => !ok).length));
          await eventually(() => expect(held.length + failed, client.name).toBe(call));
        }
      }
      const reached = held.length;
      for (const release of held) release();
      return { reached, counts: tally((await Promise.all(started)).flat()) };
    };
    for (const client of mesh.clients) expect(await heldCalls(client, CALLS), client.name).toEqual({ reached: CALLS, counts: { held: CALLS } });
    // Without outlier detection, round robin keeps sending to the bad endpoint (once both connections are up).
    for (const client of mesh.clients) await eventually(async () => expect(tally(await client.calls('flaky', 10))['INTERNAL'], client.name).toBeGreaterThan(0));

    await mesh.putPolicy('meshcircuitbreakers', 'backend-breaker', breaker);
    // The calls over the limit fail at once with UNAVAILABLE: the server only ever saw two.
    for (const client of mesh.clients) expect(await heldCalls(client, 2), client.name).toEqual({ reached: 2, counts: { held: 2, UNAVAILABLE: CALLS - 2 } });
    // Once an interval counted the bad endpoint's failures, it is ejected: every call reaches the good one.
    // (grpc-js-xds sees outlier detection added to a live cluster thanks to the cluster's NO_EJECTION
    // form before: src/main/policies/meshcircuitbreaker/grpc.ts.)
    for (const client of mesh.clients) await eventually(async () => expect(tally(await client.calls('flaky', 10)), client.name).toEqual({ good: 10 }));

    // Deleted: every call reaches the held server again, and the bad endpoint is back (well before its 60 s ejection ends).
    await mesh.deletePolicy('meshcircuitbreakers', 'backend-breaker');
    for (const client of mesh.clients) expect(await heldCalls(client, CALLS), client.name).toEqual({ reached: CALLS, counts: { held: CALLS } });
    for (const client of mesh.clients) await eventually(async () => expect(tally(await client.calls('flaky', 10))['INTERNAL'], client.name).toBeGreaterThan(0));
  });
});
