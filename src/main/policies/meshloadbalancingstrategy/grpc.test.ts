import { describe, expect, it, onTestFinished } from 'vitest';
import { caseBaseResources, policyCases, rulesAsTested } from '../../../../test/kuma/support/policy-cases.js';
import { echoClient, startEchoServer, type EchoClient } from '../../../../test/support/echo-server.js';
import { eventually } from '../../../../test/support/eventually.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { grpcJsXdsDecode, registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateGrpcBootstrap } from '../../xds/generate/bootstrap.js';
import { generateProxyResources } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, ROUTE_TYPE_URL, XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import { AdsServer } from '../../xds/server/ads-server.js';
import { SnapshotCache } from '../../xds/server/snapshot-cache.js';
import { snapshotFromJson } from '../../xds/server/snapshot.js';
import { RecordingCallbacks } from '../../xds/server/testing/recording-callbacks.js';
import { EnvoyResources } from '../core/envoy-resources.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules, type ProxyRules } from '../core/rules.js';
import type { MeshLoadBalancingStrategyConf } from './api.js';
import { meshLoadBalancingStrategyPlugin } from './plugin.js';

// gRPC's own Node xDS client, in process. grpc-js-xds 1.14 has ring hash on by default
// (GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH defaults to 'true' in build/src/environment.js): no variable is needed.
// Debian's python3-grpcio (C-core 1.51.1) is not used here: it dies with SIGSEGV at its first pick
// from any RING_HASH cluster, with or without hash policies or ring sizes (seen after its ring_hash
// policy had built the ring and both subchannels were READY); meshdesk keeps round robin for it
// (c-core-ring-hash.ts; the real client in test/e2e/grpc-ring-hash-c-core.test.ts).
await registerGrpcXds();

describe('MeshLoadBalancingStrategy on proxyless gRPC', () => {
  it.skipIf(!kumaCasesPresent())("applies Kuma's basic case as gRPC can, reports the rest, and grpc-js-xds accepts every resource", () => {
    const policyCase = policyCases('meshloadbalancingstrategy').find(({ id }) => id === 'meshloadbalancingstrategy/basic')!;
    const { proxy, context, resources } = caseBaseResources(policyCase, 'grpc');
    const unapplied: UnappliedField[] = [];
    meshLoadBalancingStrategyPlugin.applyGrpc({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: (field) => unapplied.push(field) });

    // RingHash with its ring sizes, without Envoy's MurmurHash2, which gRPC refuses.
    expect(resources.get(CLUSTER_TYPE_URL, 'payment')).toMatchObject({ lb_policy: 'RING_HASH', ring_hash_lb_config: { minimum_ring_size: 100, maximum_ring_size: 1000 } });
    expect(resources.get(CLUSTER_TYPE_URL, 'payment')!['ring_hash_lb_config']).not.toHaveProperty('hash_function');
    // Random and LeastRequest: gRPC keeps round robin.
    expect(resources.get(CLUSTER_TYPE_URL, 'backend')).toMatchObject({ lb_policy: 'ROUND_ROBIN' });
    expect(resources.get(CLUSTER_TYPE_URL, 'frontend')).toMatchObject({ lb_policy: 'ROUND_ROBIN' });
    // A query parameter and the connection are nothing gRPC hashes on.
    expect(JSON.stringify(resources.get(ROUTE_TYPE_URL, 'payment'))).not.toContain('hash_policy');
    // Other zones at priority 1, every locality weighted.
    expect(resources.get(ENDPOINT_TYPE_URL, 'payment')!['endpoints']).toEqual([
      expect.objectContaining({ locality: { zone: 'zone-1' }, load_balancing_weight: 1 }),
      expect.objectContaining({ locality: { zone: 'zone-2' }, load_balancing_weight: 1, priority: 1 }),
    ]);
    expect(unapplied.map(({ policy, field }) => `${policy.name} ${field}`).sort()).toEqual([
      'lb-backend spec.to[0].default.loadBalancer.type',
      'lb-backend spec.to[1].default.loadBalancer.type',
      'lb-backend spec.to[2].default.hashPolicies[0]',
      'lb-backend spec.to[2].default.hashPolicies[1]',
      'lb-backend spec.to[2].default.loadBalancer.ringHash.hashFunction',
    ]);

    for (const typeUrl of XDS_TYPE_URLS) {
      for (const { name, resource } of resources.list(typeUrl)) expect(grpcJsXdsDecode(typeUrl, resource), `${typeUrl} ${name}`).toEqual({ name });
    }
  });

  it('ring hash keeps each x-user header value on one of two real servers and spreads the values, with @grpc/grpc-js-xds', async () => {
    const servers = [await startEchoServer('echo-1'), await startEchoServer('echo-2')];
    for (const server of servers) onTestFinished(() => server.stop());
    const TIME = '2026-01-01T00:00:00.000Z';
    const meta = (name: string) => ({ mesh: 'default', name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} });
    const mesh: MeshResource = { type: 'Mesh', meta: { ...meta('default'), mesh: '' }, spec: {} };
    const backend = (name: string, port: number): DataplaneResource => ({
      type: 'Dataplane',
      meta: meta(name),
      spec: { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'grpc' } }] } },
    });
    const client: DataplaneResource = {
      type: 'Dataplane',
      meta: meta('client-1'),
      spec: { networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] } },
    };
    const context = buildMeshContext(mesh, [backend('echo-1', servers[0]!.port), backend('echo-2', servers[1]!.port), client]);
    const proxy: Proxy = { id: 'default.client-1', dataplane: client, kind: 'grpc' };
    const ringHash: ProxyRules<MeshLoadBalancingStrategyConf> = {
      ...emptyProxyRules(),
      to: [
        {
          subset: [{ key: 'kuma.io/service', value: 'echo' }],
          conf: { loadBalancer: { type: 'RingHash', ringHash: { minRingSize: 64 } }, hashPolicies: [{ type: 'Header', header: { name: 'x-user' } }] },
          origins: [{ type: 'MeshLoadBalancingStrategy', mesh: 'default', name: 'sticky-users', item: 'spec.to[0]' }],
        },
      ],
    };
    const snapshot = (version: string, rules: ProxyRules<MeshLoadBalancingStrategyConf>) => {
      const resources = new EnvoyResources(generateProxyResources(context, proxy), context);
      meshLoadBalancingStrategyPlugin.applyGrpc({ rulesOf: () => emptyProxyRules(), proxy, context, rules, resources, unapplied: () => {} });
      const generated = resources.toResources();
      return snapshotFromJson(Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, { version, resources: generated[typeUrl].map(({ resource }) => resource) }])));
    };

    const snapshots = new SnapshotCache();
    snapshots.setSnapshot(proxy.id, snapshot('round-robin', emptyProxyRules()));
    const recorder = new RecordingCallbacks();
    const ads = new AdsServer({ snapshots, callbacks: [recorder] });
    const adsPort = await ads.start({ port: 0 });
    onTestFinished(() => ads.stop());
    const bootstrap = generateGrpcBootstrap({ nodeId: proxy.id, adsHost: '127.0.0.1', adsPort, locality: { zone: 'default' } });
    const echo: EchoClient = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
    onTestFinished(() => echo.close());

    /** Which server answered each of `calls` calls made with header x-user: `user`. */
    const servedBy = async (user: string, calls: number) => {
      const answers = new Set<string>();
      for (let call = 0; call < calls; call++) answers.add((await echo.echo('hi', 5000, { 'x-user': user })).split(':')[0]!);
      return answers;
    };

    // Without the policy: round robin, one user's calls reach both servers.
    await eventually(async () => expect(await servedBy('user-0', 4)).toEqual(new Set(['echo-1', 'echo-2'])));

    // With it, changed live: each user sticks to one server, and the users are spread over both.
    snapshots.setSnapshot(proxy.id, snapshot('ring-hash', ringHash));
    const users = Array.from({ length: 24 }, (_, index) => `user-${index}`);
    const perServer = new Map<string, number>();
    await eventually(async () => {
      perServer.clear();
      for (const user of users) {
        const answers = await servedBy(user, 6);
        expect(answers.size, user).toBe(1);
        const [server] = answers;
        perServer.set(server!, (perServer.get(server!) ?? 0) + 1);
      }
    });
    expect([...perServer.keys()].sort()).toEqual(['echo-1', 'echo-2']);
    expect((perServer.get('echo-1') ?? 0) + (perServer.get('echo-2') ?? 0)).toBe(users.length);
    expect(recorder.of('request').filter((event) => event.classification.kind === 'nack')).toEqual([]);
    console.log(`ring hash: ${users.length} x-user values, 6 calls each: ${JSON.stringify(Object.fromEntries(perServer))} values per server`);
  });
});
