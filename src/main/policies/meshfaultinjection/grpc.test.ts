// MeshFaultInjection's gRPC form on a real @grpc/grpc-js-xds client: the generated resources (the
// proxyless generator, then applyGrpc with the destination's rules) served by the real ADS server,
// the client calling a real gRPC server on loopback.
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { echoClient, startEchoServer, type EchoClient } from '../../../../test/support/echo-server.js';
import { eventually } from '../../../../test/support/eventually.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateGrpcBootstrap } from '../../xds/generate/bootstrap.js';
import { generateProxyResources } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { AdsServer } from '../../xds/server/ads-server.js';
import { SnapshotCache } from '../../xds/server/snapshot-cache.js';
import { snapshotFromJson } from '../../xds/server/snapshot.js';
import { XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import { EnvoyResources } from '../core/envoy-resources.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules, inboundKey, type ProxyRules, type Rule } from '../core/rules.js';
import type { MeshFaultInjectionConf } from './api.js';
import { SERVER_FAULTS_ON_CLIENTS } from './grpc.js';
import { meshFaultInjectionPlugin } from './plugin.js';

await registerGrpcXds();

const TIME = '2026-01-01T00:00:00.000Z';
const meta = (mesh: string, name: string) => ({ mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} });
const MESH: MeshResource = { type: 'Mesh', meta: meta('', 'default'), spec: {} };
const ORIGIN: PolicyOrigin = { type: 'MeshFaultInjection', mesh: 'default', name: 'echo-faults', item: 'spec.from[0]' };

function backend(port: number): DataplaneResource {
  return {
    type: 'Dataplane',
    meta: meta('default', 'echo-1'),
    spec: { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'grpc' } }] } },
  };
}

/** A proxyless client that also serves `client` (its inbound tags are who it is to legacy `from` rules). */
const CLIENT: DataplaneResource = {
  type: 'Dataplane',
  meta: meta('default', 'client'),
  spec: {
    networking: {
      address: '127.0.0.1',
      inbound: [{ port: 19000, tags: { 'kuma.io/service': 'client' } }],
      outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }],
    },
  },
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Serves the client's generated config with `echo`'s inbound `from` rules applied by applyGrpc,
 * and gives an echo client resolving `xds:///echo` through it, plus what the plugin reported.
 */
async function clientWithEchoRules(from: Rule<MeshFaultInjectionConf>[]): Promise<{ client: EchoClient; unapplied: UnappliedField[] }> {
  const server = await startEchoServer('echo-1');
  cleanups.push(() => server.stop());
  const echo = backend(server.port);
  const context = buildMeshContext(MESH, [echo, CLIENT]);
  const proxy: Proxy = { id: 'default.client', dataplane: CLIENT, kind: 'grpc' };
  const resources = new EnvoyResources(generateProxyResources(context, proxy));
  const echoRules: ProxyRules<MeshFaultInjectionConf> = { ...emptyProxyRules(), from: new Map([[inboundKey('127.0.0.1', server.port), from]]) };
  const unapplied: UnappliedField[] = [];
  meshFaultInjectionPlugin.applyGrpc({
    proxy,
    context,
    rules: emptyProxyRules(),
    resources,
    rulesOf: (dataplane) => (dataplane.meta.name === 'echo-1' ? echoRules : emptyProxyRules()),
    unapplied: (field) => unapplied.push(field),
  });
  const generated = resources.toResources();
  const snapshots = new SnapshotCache();
  snapshots.setSnapshot(
    proxy.id,
    snapshotFromJson(Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, { version: '1', resources: generated[typeUrl].map(({ resource }) => resource) }]))),
  );
  const ads = new AdsServer({ snapshots });
  const port = await ads.start({ port: 0 });
  cleanups.push(() => ads.stop());
  const bootstrap = generateGrpcBootstrap({ nodeId: proxy.id, adsHost: '127.0.0.1', adsPort: port, locality: { region: 'local', zone: 'default' } });
  const client = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
  cleanups.push(() => client.close());
  return { client, unapplied };
}

describe('MeshFaultInjection for proxyless gRPC', () => {
  it("reports the faults on a proxyless server's own inbounds: nothing on it can inject them", () => {
    const context = buildMeshContext(MESH, [CLIENT]);
    const proxy: Proxy = { id: 'default.client', dataplane: CLIENT, kind: 'grpc' };
    const resources = new EnvoyResources(generateProxyResources(context, proxy));
    const unapplied: UnappliedField[] = [];
    const own: Rule<MeshFaultInjectionConf> = { subset: [], conf: { http: [{ delay: { value: '1s', percentage: 50 } }] }, origins: [ORIGIN] };
    meshFaultInjectionPlugin.applyGrpc({
      proxy,
      context,
      rules: { ...emptyProxyRules(), from: new Map([[inboundKey('127.0.0.1', 19000), [own]]]) },
      resources,
      rulesOf: () => emptyProxyRules(),
      unapplied: (field) => unapplied.push(field),
    });
    expect(unapplied).toEqual([{ policy: { type: 'MeshFaultInjection', name: 'echo-faults' }, field: 'spec.from[0].default.http', reason: SERVER_FAULTS_ON_CLIENTS }]);
  });
});

describe('MeshFaultInjection through @grpc/grpc-js-xds', () => {
  it("aborts the share of calls the destination's rule for this client says, and ignores the rule for other clients", async () => {
    const { client, unapplied } = await clientWithEchoRules([
      // Calls from `client`: 30% aborted with 503 (UNAVAILABLE in gRPC); its bandwidth limit gRPC cannot apply.
      {
        subset: [{ key: 'kuma.io/service', value: 'client' }],
        conf: { http: [{ abort: { httpStatus: 503, percentage: 30 }, responseBandwidth: { limit: '1Mbps', percentage: 100 } }] },
        origins: [ORIGIN],
      },
      // Everybody else: every call aborted. Not this client's.
      { subset: [{ key: 'kuma.io/service', value: 'client', not: true }], conf: { http: [{ abort: { httpStatus: 500, percentage: 100 } }] }, origins: [ORIGIN] },
    ]);
    expect(unapplied).toEqual([
      { policy: { type: 'MeshFaultInjection', name: 'echo-faults' }, field: 'spec.from[0].default.http[0].responseBandwidth', reason: expect.stringContaining('bandwidth') },
    ]);
    expect(await client.echo('warm up', 5000).catch((error: { code: number }) => error.code)).toSatisfy(
      (answer) => answer === 'echo-1: warm up' || answer === status.UNAVAILABLE,
    );
    const calls = 600;
    const codes = new Map<number, number>();
    for (let call = 0; call < calls; call++) {
      const code = await client.echo(`call ${call}`).then(
        () => status.OK,
        (error: { code: number }) => error.code,
      );
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    // Binomial(600, 0.3): mean 180, standard deviation 11.2; five of them either side.
    const aborted = codes.get(status.UNAVAILABLE) ?? 0;
    expect(aborted).toBeGreaterThanOrEqual(180 - 56);
    expect(aborted).toBeLessThanOrEqual(180 + 56);
    expect(codes.get(status.OK)).toBe(calls - aborted);
  });

  it('delays every call by the fixed delay', async () => {
    const { client } = await clientWithEchoRules([
      { subset: [], conf: { http: [{ delay: { value: '300ms', percentage: 100 } }] }, origins: [ORIGIN] },
    ]);
    await eventually(() => client.echo('ready'));
    for (let call = 0; call < 5; call++) {
      const started = performance.now();
      expect(await client.echo(`call ${call}`)).toBe(`echo-1: call ${call}`);
      // At least the delay (never an upper bound: the machine may be slow).
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    }
  });
});
