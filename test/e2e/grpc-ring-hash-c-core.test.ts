import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { echoClient } from '../support/echo-server.js';
import { startEchoMesh } from '../support/echo-mesh.js';
import { eventually } from '../support/eventually.js';
import { registerGrpcXds } from '../support/grpc-xds.js';
import { startPythonEchoClient } from '../support/python-echo-client.js';
import { tempDir } from '../support/temp-dir.js';

await registerGrpcXds();

/** Ring hash on `echo` by the x-user header, for every client of the mesh. */
const STICKY_USERS = {
  type: 'MeshLoadBalancingStrategy',
  mesh: 'default',
  name: 'sticky-users',
  spec: {
    targetRef: { kind: 'Mesh' },
    to: [
      {
        targetRef: { kind: 'MeshService', name: 'echo' },
        default: { loadBalancer: { type: 'RingHash', ringHash: { hashPolicies: [{ type: 'Header', header: { name: 'x-user' } }] } } },
      },
    ],
  },
};

describe('MeshLoadBalancingStrategy RingHash through the real core, per gRPC client', () => {
  it('keeps round robin for C-core 1.51 (python3-grpcio), which ring hash kills, and says so; grpc-js-xds gets ring hash', async () => {
    const { core } = await startEchoMesh(['py-client', 'js-client']);
    const put = await fetch(`${core.api.url}/meshes/default/meshloadbalancingstrategies/sticky-users`, { method: 'PUT', body: JSON.stringify(STICKY_USERS) });
    expect(put.status, await put.text()).toBeLessThan(300);
    const balancingUnapplied = (proxyId: string) =>
      core.xds.policyEffects.get(proxyId)?.unapplied.filter(({ policy }) => policy.type === 'MeshLoadBalancingStrategy');
    const bootstrap = (nodeId: string) =>
      generateGrpcBootstrap({ nodeId, adsHost: '127.0.0.1', adsPort: core.xds.port, locality: { region: 'local', zone: 'default' } });

    // C-core: every call succeeds, and one user's calls reach both servers (round robin).
    const bootstrapFile = join(tempDir(), 'bootstrap.json');
    writeFileSync(bootstrapFile, JSON.stringify(bootstrap('default.py-client')));
    const python = startPythonEchoClient('xds:///echo', bootstrapFile);
    onTestFinished(() => python.stop());
    expect(await python.ready()).toEqual({ ready: true });
    const pythonServers = async (calls: number) => {
      const seen = new Set<string>();
      for (let call = 0; call < calls; call++) {
        const result = await python.call('hi', { 'x-user': 'user-0' });
        if (!result.ok) throw new Error(`python call failed: ${result.code} ${result.details}`);
        seen.add(result.reply.split(':')[0]!);
      }
      return seen;
    };
    await eventually(async () => expect(await pythonServers(6)).toEqual(new Set(['echo-1', 'echo-2'])));
    expect(balancingUnapplied('default.py-client')).toEqual([
      {
        policy: { type: 'MeshLoadBalancingStrategy', name: 'sticky-users' },
        field: 'spec.to[0].default.loadBalancer.type',
        reason: expect.stringMatching(/^gRPC C-core 29\.0\.0 Python 1\.51\.\d+ crashes on its first call through a ring hash cluster .*round robin$/),
      },
    ]);

    // grpc-js-xds: each user sticks to one server.
    const js = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap('default.js-client')) });
    onTestFinished(() => js.close());
    const jsServers = async (user: string, calls: number) => {
      const seen = new Set<string>();
      for (let call = 0; call < calls; call++) seen.add((await js.echo('hi', 5000, { 'x-user': user })).split(':')[0]!);
      return seen;
    };
    await eventually(async () => {
      for (const user of ['user-0', 'user-1', 'user-2', 'user-3']) expect((await jsServers(user, 6)).size, user).toBe(1);
    });
    expect(balancingUnapplied('default.js-client')).toEqual([]);
    // The python client is still alive and served.
    expect(await python.call('still here')).toMatchObject({ ok: true });
  });
});
