// MeshLoadBalancingStrategy written through the API, proven on a real @grpc/grpc-js-xds client.
// Not on python3-grpcio: Debian's 1.51 crashes (SIGSEGV) on a RING_HASH cluster, and meshdesk is
// being changed not to send RING_HASH to C-core clients.
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startPolicyMesh, tally } from '../../support/policy-mesh.js';

const ringHash = `
type: MeshLoadBalancingStrategy
mesh: default
name: sticky-users
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: ring
      default:
        loadBalancer:
          type: RingHash
          ringHash:
            minRingSize: 64
        hashPolicies:
          - type: Header
            header:
              name: x-user
`;
const USERS = Array.from({ length: 10 }, (_, index) => `user-${index}`);

describe('MeshLoadBalancingStrategy on real data planes', () => {
  it('keeps each x-user header value on one endpoint under ring hash, and spreads the values', async () => {
    const mesh = await startPolicyMesh(
      [
        { name: 'ring-1', service: 'ring' },
        { name: 'ring-2', service: 'ring' },
      ],
      ['grpc-js-xds'],
    );
    const [client] = mesh.clients;
    const perUser = async () => Promise.all(USERS.map(async (user) => tally(await client!.calls('ring', 10, { headers: { 'x-user': user } }))));
    // Round robin first: one user's calls reach both endpoints (once both connections are up).
    await eventually(async () => expect(Object.keys((await perUser())[0]!).sort()).toEqual(['ring-1', 'ring-2']));

    await mesh.putPolicy('meshloadbalancingstrategies', 'sticky-users', ringHash);
    const counts = await perUser();
    for (const [index, count] of counts.entries()) expect(Object.values(count), USERS[index]).toEqual([10]);
    expect(new Set(counts.flatMap((count) => Object.keys(count)))).toEqual(new Set(['ring-1', 'ring-2']));
  });
});
