// The shadow policies of Kuma's migration guide (a deny-all MeshTrafficPermission, a MeshTimeout, a
// MeshCircuitBreaker, each labelled `kuma.io/effect: shadow`) written through the API to a mesh of
// real data planes (grpc-js-xds client and xDS server, mTLS): every proxy's configuration stays byte
// for byte what it was, no proxy is sent anything, calls still pass; the same permission made live
// denies them, so the test would see a shadow policy that went live.
import '../../support/grpc-js-xds-rbac.js';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../../src/main/core.js';
import { eventually } from '../../support/eventually.js';
import { startPolicyMesh, tally } from '../../support/policy-mesh.js';
import { now } from '../../../src/main/xds/status/proxy-timeline.js';

const shadow = (type: string, name: string, spec: string, labels = '  kuma.io/effect: shadow\n') => `type: ${type}
mesh: default
name: ${name}
labels:
${labels}spec:
  targetRef:
    kind: Mesh
${spec}`;

const DENY_ALL = `  from:
    - targetRef:
        kind: Mesh
      default:
        action: Deny
`;
const POLICIES = [
  ['meshtrafficpermissions', 'a-deny-all', shadow('MeshTrafficPermission', 'a-deny-all', DENY_ALL)],
  ['meshtimeouts', 'a-short-timeout', shadow('MeshTimeout', 'a-short-timeout', `  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: 1s
        http:
          requestTimeout: 50ms
`)],
  ['meshcircuitbreakers', 'a-tight-breaker', shadow('MeshCircuitBreaker', 'a-tight-breaker', `  to:
    - targetRef:
        kind: Mesh
      default:
        connectionLimits:
          maxRequests: 1
        outlierDetection:
          disabled: false
          detectors:
            totalFailures:
              consecutive: 1
`)],
] as const;

/** Every resource's bytes of the proxy's snapshot in place, by type and name. */
function snapshotBytes(core: Core, proxyId: string): Record<string, Record<string, string>> {
  const snapshot = core.xds.snapshots.getSnapshot(proxyId);
  if (!snapshot) throw new Error(`${proxyId} has no snapshot`);
  return Object.fromEntries(
    [...snapshot].map(([typeUrl, { resources }]) => [typeUrl, Object.fromEntries([...resources].map(([name, { any }]) => [name, Buffer.from(any.value).toString('base64')]))]),
  );
}

describe('shadow policies on real data planes', () => {
  it('change no byte of any proxy and send nothing; made live, the permission denies', async () => {
    const mesh = await startPolicyMesh([{ name: 'echo-1', service: 'echo', xdsServer: 'grpc-js-xds' }], ['grpc-js-xds'], { mtls: true });
    const [client] = mesh.clients;
    const proxies = [...client!.proxyIds, ...mesh.serverProxyIds];
    // mTLS denies what no permission allows. Kuma merges equal targetRefs in descending name order, so
    // "a-deny-all" merges after this one and wins once live.
    const allowAll = DENY_ALL.replace('Deny', 'Allow');
    await mesh.putPolicy('meshtrafficpermissions', 'allow-all', shadow('MeshTrafficPermission', 'allow-all', allowAll, '  team: platform\n'), { unchanged: ['grpc-js-xds'], servers: true });
    expect(tally(await client!.calls('echo', 3))).toEqual({ 'echo-1': 3 });
    const before = Object.fromEntries(proxies.map((proxyId) => [proxyId, snapshotBytes(mesh.core, proxyId)]));

    const since = now();
    for (const [path, name, yaml] of POLICIES) {
      const response = await fetch(`${mesh.core.api.url}/meshes/default/${path}/${name}`, { method: 'PUT', body: yaml });
      expect(response.status, name).toBe(201);
    }
    // Every proxy generated again from a mesh view that holds the three (the context changed), and came out the same.
    await eventually(async () => expect((await mesh.core.xds.meshContexts.get('default')).shadowPolicies.map((policy) => policy.meta.name).sort()).toEqual(['a-deny-all', 'a-short-timeout', 'a-tight-breaker']));
    for (const proxyId of proxies) {
      await eventually(() => expect(mesh.core.xds.timeline.events(proxyId).some((event) => event.kind === 'tick' && event.at >= since && event.result === 'generated')).toBe(true));
      const after = mesh.core.xds.timeline.events(proxyId).filter((event) => event.at >= since);
      expect(after.filter((event) => event.kind === 'response' || (event.kind === 'tick' && event.result === 'changed')), proxyId).toEqual([]);
      expect(snapshotBytes(mesh.core, proxyId), proxyId).toEqual(before[proxyId]);
    }
    expect(tally(await client!.calls('echo', 3))).toEqual({ 'echo-1': 3 });

    // The permission without its shadow label reaches the server, which then refuses the calls.
    await mesh.putPolicy('meshtrafficpermissions', 'a-deny-all', shadow('MeshTrafficPermission', 'a-deny-all', DENY_ALL, '  team: platform\n'), { unchanged: ['grpc-js-xds'], servers: true });
    await eventually(async () => expect(tally(await client!.calls('echo', 3))).toEqual({ PERMISSION_DENIED: 3 }));
  });
});
