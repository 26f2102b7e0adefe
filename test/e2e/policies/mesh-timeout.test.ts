// MeshTimeout written through the API, proven on both real xDS clients calling a slow server.
import { describe, expect, it } from 'vitest';
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
  it('ends calls to a slow server with DEADLINE_EXCEEDED after the requestTimeout, and not once the policy is deleted', async () => {
    // @grpc/grpc-js-xds only. Debian's python3-grpcio 1.51 (C-core) ends every call at once with
    // DEADLINE_EXCEEDED under a route max_stream_duration of 300ms, 1s, 1.3s or 2s (measured: 1 to
    // 61 ms into a call, with a 5 s call deadline), while 15s (mesh-timeout-all-default) lets calls
    // through even after 17 s: it cannot be shown honouring a duration here (see the report).
    const mesh = await startPolicyMesh(
      [{ name: 'slow', service: 'slow', handler: (call, callback) => setTimeout(() => callback(null, `slow: ${call.request}`), SLOW_MS) }],
      ['grpc-js-xds'],
    );
    const calls = () => Promise.all(mesh.clients.map(async (client) => [client.name, await client.calls('slow', 3)] as const));
    // mesh-timeout-all-default (requestTimeout 15s, the mesh's initial policy) applies too: it lets a 1 s call finish.
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ slow: 3 });

    await mesh.putPolicy('meshtimeouts', 'client-timeout', timeout);
    for (const [name, results] of await calls()) {
      expect(tally(results), name).toEqual({ DEADLINE_EXCEEDED: 3 });
      for (const { ms } of results) expect(ms, name).toBeGreaterThanOrEqual(TIMEOUT_MS - CLOCK_GRAIN_MS);
    }

    await mesh.deletePolicy('meshtimeouts', 'client-timeout');
    for (const [name, results] of await calls()) expect(tally(results), name).toEqual({ slow: 3 });
  });
});
