// MeshFaultInjection's gRPC form on a real @grpc/grpc-js-xds client: the generated resources (the
// proxyless generator, then applyGrpc with the destination's rules) served by the real ADS server,
// the client calling a real gRPC server on loopback.
import { status } from '@grpc/grpc-js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { echoClient, startEchoServer, type EchoClient } from '../../../../test/support/echo-server.js';
import { eventually } from '../../../../test/support/eventually.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import { startPythonEchoClient } from '../../../../test/support/python-echo-client.js';
import { tempDir } from '../../../../test/support/temp-dir.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateGrpcBootstrap } from '../../xds/generate/bootstrap.js';
import { generateProxyResources } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { AdsServer } from '../../xds/server/ads-server.js';
import { SnapshotCache } from '../../xds/server/snapshot-cache.js';
import { snapshotFromJson } from '../../xds/server/snapshot.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
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
 * Serves the client's generated config, with `echo`'s inbound `from` rules applied by applyGrpc,
 * from a real ADS server; gives the bootstrap a client of it uses and what the plugin reported.
 */
async function serveWithEchoRules(from: Rule<MeshFaultInjectionConf>[]): Promise<{ bootstrap: ProtoJson; unapplied: UnappliedField[] }> {
  const server = await startEchoServer('echo-1');
  cleanups.push(() => server.stop());
  const echo = backend(server.port);
  const context = buildMeshContext(MESH, [echo, CLIENT]);
  const proxy: Proxy = { id: 'default.client', dataplane: CLIENT, kind: 'grpc' };
  const resources = new EnvoyResources(generateProxyResources(context, proxy), context);
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
  return { bootstrap: generateGrpcBootstrap({ nodeId: proxy.id, adsHost: '127.0.0.1', adsPort: port, locality: { region: 'local', zone: 'default' } }), unapplied };
}

/** A grpc-js-xds client resolving `xds:///echo` with the bootstrap. */
function grpcJsClient(bootstrap: ProtoJson): EchoClient {
  const client = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
  cleanups.push(() => client.close());
  return client;
}

/** A python3-grpcio (C-core) client, answering each call with `OK` or its status code's name. */
async function pythonClient(bootstrap: ProtoJson): Promise<(text: string) => Promise<string>> {
  const file = join(tempDir(), 'bootstrap.json');
  writeFileSync(file, JSON.stringify(bootstrap));
  const client = startPythonEchoClient('xds:///echo', file);
  cleanups.push(() => client.stop());
  expect(await client.ready()).toEqual({ ready: true });
  return async (text) => {
    const result = await client.call(text);
    return result.ok ? 'OK' : result.code;
  };
}

/** Calls: from `client`, 30% aborted with 503; from anybody else, all aborted with 500 (not this client's rule). */
const ABORT_RULES: Rule<MeshFaultInjectionConf>[] = [
  {
    subset: [{ key: 'kuma.io/service', value: 'client' }],
    conf: { http: [{ abort: { httpStatus: 503, percentage: 30 }, responseBandwidth: { limit: '1Mbps', percentage: 100 } }] },
    origins: [ORIGIN],
  },
  { subset: [{ key: 'kuma.io/service', value: 'client', not: true }], conf: { http: [{ abort: { httpStatus: 500, percentage: 100 } }] }, origins: [ORIGIN] },
];

/** Every call delayed by 300 ms. */
const DELAY_RULES: Rule<MeshFaultInjectionConf>[] = [{ subset: [], conf: { http: [{ delay: { value: '300ms', percentage: 100 } }] }, origins: [ORIGIN] }];

/** How many of `calls` calls ended how ('OK', 'UNAVAILABLE', …). */
async function outcomes(call: (text: string) => Promise<string>, calls: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let index = 0; index < calls; index++) {
    const outcome = await call(`call ${index}`);
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  return counts;
}

/** Binomial(n, 0.3): the aborted calls lie within five standard deviations of 0.3 n, and every other call succeeded. */
function expectThirtyPercentAborted(counts: Map<string, number>, calls: number): void {
  const mean = 0.3 * calls;
  const tolerance = 5 * Math.sqrt(calls * 0.3 * 0.7);
  const aborted = counts.get('UNAVAILABLE') ?? 0;
  expect(aborted).toBeGreaterThanOrEqual(mean - tolerance);
  expect(aborted).toBeLessThanOrEqual(mean + tolerance);
  expect(counts.get('OK')).toBe(calls - aborted);
}

/** Each call takes at least the delay (never an upper bound: the machine may be slow). */
async function expectDelayed(call: (text: string) => Promise<string>): Promise<void> {
  await eventually(async () => expect(await call('ready')).toBe('OK'));
  for (let index = 0; index < 5; index++) {
    const started = performance.now();
    expect(await call(`call ${index}`)).toBe('OK');
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  }
}

const grpcJsCall = (client: EchoClient) => (text: string) =>
  client.echo(text).then(
    () => 'OK',
    (error: { code: number }) => status[error.code]!,
  );

describe('MeshFaultInjection for proxyless gRPC', () => {
  it("reports the faults on a proxyless server's own inbounds: nothing on it can inject them", () => {
    const context = buildMeshContext(MESH, [CLIENT]);
    const proxy: Proxy = { id: 'default.client', dataplane: CLIENT, kind: 'grpc' };
    const resources = new EnvoyResources(generateProxyResources(context, proxy), context);
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
    const { bootstrap, unapplied } = await serveWithEchoRules(ABORT_RULES);
    expect(unapplied).toEqual([
      { policy: { type: 'MeshFaultInjection', name: 'echo-faults' }, field: 'spec.from[0].default.http[0].responseBandwidth', reason: expect.stringContaining('bandwidth') },
    ]);
    const call = grpcJsCall(grpcJsClient(bootstrap));
    await eventually(async () => expect(['OK', 'UNAVAILABLE']).toContain(await call('warm up')));
    expectThirtyPercentAborted(await outcomes(call, 600), 600);
  });

  it('delays every call by the fixed delay', async () => {
    const { bootstrap } = await serveWithEchoRules(DELAY_RULES);
    await expectDelayed(grpcJsCall(grpcJsClient(bootstrap)));
  });
});

describe('MeshFaultInjection through C-core (python3-grpcio)', () => {
  it("aborts the share of calls the destination's rule for this client says", async () => {
    const { bootstrap } = await serveWithEchoRules(ABORT_RULES);
    const call = await pythonClient(bootstrap);
    await eventually(async () => expect(['OK', 'UNAVAILABLE']).toContain(await call('warm up')));
    expectThirtyPercentAborted(await outcomes(call, 400), 400);
  });

  it('delays every call by the fixed delay', async () => {
    const { bootstrap } = await serveWithEchoRules(DELAY_RULES);
    await expectDelayed(await pythonClient(bootstrap));
  });
});
