// MeshTimeout written through the API, proven on both real xDS clients calling a slow server.
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startPolicyMesh, tally } from '../../support/policy-mesh.js';

const SLOW_MS = 1000;
const TIMEOUT_MS = 300;
// Node's timers and C-core's clock may round a deadline to the millisecond tick: the lower bound
// leaves them that much. There is no upper bound: a loaded machine may be late, never early.
const CLOCK_GRAIN_MS = 5;

// Kuma merges the policies of one top-level targetRef kind in descending name order, so that the
// lexicographically smaller name merges last and wins (SortByTargetRef): the mesh's initial
// mesh-timeout-all-default (requestTimeout 15s on every outbound) would override a policy named
// after it, such as "slow-timeout". This one's name sorts before it.
const timeout = `
type: MeshTimeout
mesh: default
name: client-timeout
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: slow
      default:
        http:
          requestTimeout: ${TIMEOUT_MS}ms
`;

describe('MeshTimeout on real data planes', () => {
  it('ends grpc-js calls to a slow server with DEADLINE_EXCEEDED after the requestTimeout, leaves C-core (which would end them early) its deadlines and says why, and not once the policy is deleted', async () => {
    const mesh = await startPolicyMesh([{ name: 'slow', service: 'slow', handler: (call, callback) => setTimeout(() => callback(null, `slow: ${call.request}`), SLOW_MS) }]);
    const calls = () => Promise.all(mesh.clients.map(async (client) => [client.name, await client.calls('slow', 3)] as const));
    // mesh-timeout-all-default (requestTimeout 15s, the mesh's initial policy) applies too: it lets a 1 s call finish.
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ slow: 3 });

    const [python] = mesh.clients.find(({ name }) => name === 'python3-grpcio')!.proxyIds;
    const timeoutUnapplied = () => mesh.core.xds.policyEffects.get(python!)?.unapplied.filter(({ policy }) => policy.name === 'client-timeout');
    // C-core would end these calls at once (1 to 2 s before any max_stream_duration,
    // grpc/grpc#34547): it gets no deadline, so nothing new; its proxy says why.
    await mesh.putPolicy('meshtimeouts', 'client-timeout', timeout, { unchanged: ['python3-grpcio'] });
    await eventually(() =>
      expect(timeoutUnapplied()).toEqual([
        { policy: { type: 'MeshTimeout', name: 'client-timeout' }, field: 'spec.to[0].default.http.requestTimeout', reason: expect.stringContaining('grpc/grpc#34547') },
      ]),
    );
    for (const [name, results] of await calls()) {
      if (name === 'python3-grpcio') {
        expect(tally(results), name).toEqual({ slow: 3 });
        continue;
      }
      expect(tally(results), name).toEqual({ DEADLINE_EXCEEDED: 3 });
      for (const { ms } of results) expect(ms, name).toBeGreaterThanOrEqual(TIMEOUT_MS - CLOCK_GRAIN_MS);
    }

    await mesh.deletePolicy('meshtimeouts', 'client-timeout', { unchanged: ['python3-grpcio'] });
    await eventually(() => expect(timeoutUnapplied()).toEqual([]));
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ slow: 3 });
  });
});
