// MeshRetry written through the API, proven on both real xDS clients calling a flaky server.
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { startPolicyMesh, tally } from '../../support/policy-mesh.js';

const retry = `
type: MeshRetry
mesh: default
name: flaky-retry
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: flaky
      default:
        grpc:
          numRetries: 2
          retryOn: [Unavailable]
          backOff:
            baseInterval: 10ms
            maxInterval: 20ms
`;

describe('MeshRetry on real data planes', () => {
  it('retries a server failing the first two attempts of each call with UNAVAILABLE: the call succeeds on the third', async () => {
    /** Attempts the server saw, by the call's `x-call-id`. */
    const attempts = new Map<string, number>();
    const mesh = await startPolicyMesh([
      {
        name: 'flaky',
        service: 'flaky',
        handler: (call, callback) => {
          const id = String(call.metadata.get('x-call-id')[0]);
          attempts.set(id, (attempts.get(id) ?? 0) + 1);
          if (attempts.get(id)! <= 2) callback({ code: status.UNAVAILABLE, details: `attempt ${attempts.get(id)} fails` });
          else callback(null, `flaky: ${call.request}`);
        },
      },
    ]);
    const callOnce = (round: string) =>
      Promise.all(mesh.clients.map(async (client) => {
        const id = `${round}-${client.name}`;
        return { name: client.name, counts: tally(await client.calls('flaky', 1, { headers: { 'x-call-id': id } })), attempts: attempts.get(id) };
      }));
    // The mesh's initial mesh-retry-all-default retries UNAVAILABLE five times on every service: it
    // would hide whether this policy applies, so it goes first, as a user narrowing retries would.
    await mesh.deletePolicy('meshretries', 'mesh-retry-all-default');
    for (const { name, counts, attempts } of await callOnce('none')) expect({ counts, attempts }, name).toEqual({ counts: { UNAVAILABLE: 1 }, attempts: 1 });

    await mesh.putPolicy('meshretries', 'flaky-retry', retry);
    for (const { name, counts, attempts } of await callOnce('retried')) expect({ counts, attempts }, name).toEqual({ counts: { flaky: 1 }, attempts: 3 });

    await mesh.deletePolicy('meshretries', 'flaky-retry');
    for (const { name, counts, attempts } of await callOnce('deleted')) expect({ counts, attempts }, name).toEqual({ counts: { UNAVAILABLE: 1 }, attempts: 1 });
  });
});
