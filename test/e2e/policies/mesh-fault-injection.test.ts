// MeshFaultInjection written through the API, proven on both real xDS clients: gRPC injects the
// destination's faults on the client (see src/main/policies/meshfaultinjection/grpc.ts).
import { describe, expect, it } from 'vitest';
import { binomialTolerance, startPolicyMesh, tally } from '../../support/policy-mesh.js';

const fault = (item: string) => `
type: MeshFaultInjection
mesh: default
name: faulty-faults
spec:
  targetRef:
    kind: MeshService
    name: faulty
  from:
    - targetRef:
        kind: Mesh
      default:
        http:
          - ${item}
`;
// HTTP 500 reaches gRPC as UNKNOWN (gRFC A33's HTTP-to-gRPC mapping), which the mesh's initial
// mesh-retry-all-default does not retry (it retries cancelled, resource-exhausted, unavailable):
// each abort shows as one failed call.
const ABORT = { percentage: 30, calls: 400 };
const DELAY_MS = 300;
// As for MeshTimeout: a lower bound only, less the clocks' millisecond grain.
const CLOCK_GRAIN_MS = 5;

describe('MeshFaultInjection on real data planes', () => {
  it('aborts the configured share of calls, then delays every call, and injects nothing once deleted', async () => {
    // Each change reaches @grpc/grpc-js-xds as a new RouteConfiguration name: it applies a changed
    // Listener only then (src/main/policies/core/grpc-route-config-names.ts).
    const mesh = await startPolicyMesh([{ name: 'faulty', service: 'faulty' }]);
    const calls = () => Promise.all(mesh.clients.map(async (client) => [client.name, await client.calls('faulty', ABORT.calls)] as const));
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ faulty: ABORT.calls });

    await mesh.putPolicy('meshfaultinjections', 'faulty-faults', fault(`abort: { httpStatus: 500, percentage: ${ABORT.percentage} }`));
    // Each call aborts with probability 30 %: binomial, within 5 standard deviations (46 of 400).
    for (const [name, results] of await calls()) {
      const counts = tally(results);
      expect(Object.keys(counts).sort(), name).toEqual(['UNKNOWN', 'faulty']);
      expect(Math.abs(counts['UNKNOWN']! - ABORT.calls * 0.3), `${name} ${JSON.stringify(counts)}`).toBeLessThanOrEqual(binomialTolerance(ABORT.calls, 0.3));
    }

    await mesh.putPolicy('meshfaultinjections', 'faulty-faults', fault(`delay: { value: ${DELAY_MS}ms, percentage: 100 }`));
    for (const [name, results] of await calls()) {
      expect(tally(results), name).toEqual({ faulty: ABORT.calls });
      expect(Math.min(...results.map(({ ms }) => ms)), name).toBeGreaterThanOrEqual(DELAY_MS - CLOCK_GRAIN_MS);
    }

    await mesh.deletePolicy('meshfaultinjections', 'faulty-faults');
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ faulty: ABORT.calls });
  });
});
