// MeshHTTPRoute on proxyless gRPC, proven with gRPC's own xDS clients (@grpc/grpc-js-xds and
// Debian's python3-grpcio, C-core): the
// resources meshdesk generates for a client, changed by the plugin, served by the real ADS server,
// route real calls to two real gRPC servers (v1 and v2 of one service) on loopback.
import { emptyProxyRules } from '../core/rules.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { echoClient, startEchoServer, type EchoServer } from '../../../../test/support/echo-server.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import { startPythonEchoClient } from '../../../../test/support/python-echo-client.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { generateGrpcBootstrap } from '../../xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { AdsServer } from '../../xds/server/ads-server.js';
import { SnapshotCache } from '../../xds/server/snapshot-cache.js';
import { snapshotFromJson } from '../../xds/server/snapshot.js';
import { RecordingCallbacks } from '../../xds/server/testing/recording-callbacks.js';
import type { UnappliedField } from '../core/plugin.js';
import { destinationClusterName } from '../core/route-clusters.js';
import { echoRules, twoVersionMesh } from '../core/testing/two-version-mesh.js';
import type { HttpRouteRule, MeshHTTPRouteConf } from './api.js';
import { applyMeshHTTPRouteToGrpc } from './grpc.js';

const ORIGIN: PolicyOrigin = { type: 'MeshHTTPRoute', mesh: 'default', name: 'echo-route', item: 'spec.to[0]' };
/** gRPC method paths are `/package.Service/Method`: a PathPrefix on the service matches every method of it. */
const ECHO_SERVICE_PREFIX = { type: 'PathPrefix', value: '/meshdesk.test.EchoService' } as const;


/** The split clusters of the two versions (Kuma's names; the plugin goldens prove the naming). */
const V1 = destinationClusterName({ 'kuma.io/service': 'echo', version: 'v1' });
const V2 = destinationClusterName({ 'kuma.io/service': 'echo', version: 'v2' });

const subset = (version: string, weight: number) => ({ kind: 'MeshServiceSubset' as const, name: 'echo', tags: { version }, weight });

/** A header match sends to v2; everything else of the service is split between v1 and v2. */
function splitRules(v1Weight: number, v2Weight: number): HttpRouteRule[] {
  return [
    {
      matches: [{ path: ECHO_SERVICE_PREFIX }],
      default: { backendRefs: [subset('v1', v1Weight), subset('v2', v2Weight)] },
    },
    {
      matches: [{ path: ECHO_SERVICE_PREFIX, headers: [{ type: 'Exact', name: 'x-version', value: 'v2' }] }],
      default: { backendRefs: [subset('v2', 1)] },
    },
  ];
}

function applied(v1Port: number, v2Port: number, rules: HttpRouteRule[]) {
  const { context, proxy, resources } = twoVersionMesh(v1Port, v2Port);
  const unapplied: UnappliedField[] = [];
  applyMeshHTTPRouteToGrpc({ rulesOf: () => emptyProxyRules(), context, proxy, resources, rules: echoRules<MeshHTTPRouteConf>({ rules }, ORIGIN), unapplied: (field) => unapplied.push(field) });
  return { resources, unapplied };
}

describe('MeshHTTPRoute for proxyless gRPC', () => {
  it('writes the routes into the RouteConfiguration gRPC fetches, with split clusters and only their endpoints', () => {
    const { resources, unapplied } = applied(7001, 7002, splitRules(90, 10));
    const routes = (resources.get(ROUTE_TYPE_URL, 'echo')!['virtual_hosts'] as { routes: { match: unknown; route: unknown }[] }[])[0]!.routes;
    expect(routes.map(({ match, route }) => ({ match, route }))).toEqual([
      { match: { path: '/meshdesk.test.EchoService', headers: [{ name: 'x-version', exact_match: 'v2' }] }, route: { cluster: V2 } },
      { match: { prefix: '/meshdesk.test.EchoService/', headers: [{ name: 'x-version', exact_match: 'v2' }] }, route: { cluster: V2 } },
      { match: { path: '/meshdesk.test.EchoService' }, route: { weighted_clusters: { clusters: [{ name: V1, weight: 90 }, { name: V2, weight: 10 }] } } },
      { match: { prefix: '/meshdesk.test.EchoService/' }, route: { weighted_clusters: { clusters: [{ name: V1, weight: 90 }, { name: V2, weight: 10 }] } } },
      { match: { prefix: '/' }, route: { cluster: 'echo' } },
    ]);
    expect(resources.list(CLUSTER_TYPE_URL).map(({ name }) => name).sort()).toEqual(['echo', V1, V2]);
    const ports = (name: string) =>
      ((resources.get(ENDPOINT_TYPE_URL, name)!['endpoints'] as { lb_endpoints: { endpoint: { address: { socket_address: { port_value: number } } } }[] }[])[0]!.lb_endpoints).map(
        ({ endpoint }) => endpoint.address.socket_address.port_value,
      );
    expect([ports(V1), ports(V2)]).toEqual([[7001], [7002]]);
    expect(unapplied).toEqual([]);
  });

  it('reports the filters and query matches gRPC cannot apply, and turns Absent into an inverted presence match', () => {
    const { resources, unapplied } = applied(7001, 7002, [
      {
        matches: [{ headers: [{ type: 'Absent', name: 'x-debug' }] }],
        default: {
          filters: [
            { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-a', value: 'b' }] } },
            { type: 'RequestRedirect', requestRedirect: { hostname: 'example.com' } },
          ],
          backendRefs: [subset('v2', 1)],
        },
      },
      { matches: [{ queryParams: [{ type: 'Exact', name: 'q', value: '1' }] }], default: {} },
      { matches: [{ method: 'GET' }], default: {} },
    ]);
    const routes = (resources.get(ROUTE_TYPE_URL, 'echo')!['virtual_hosts'] as { routes: Record<string, unknown>[] }[])[0]!.routes;
    expect(routes).toEqual([
      {
        match: { prefix: '/', headers: [{ name: 'x-debug', present_match: true, invert_match: true }] },
        name: expect.any(String),
        route: { cluster: V2 },
      },
      { match: { prefix: '/' }, name: '9Zuf5Tg79OuZcQITwBbQykxAk2u4fRKrwYn3//AL4Yo=', route: { cluster: 'echo' } },
    ]);
    expect(unapplied.map(({ policy, field }) => `${policy.name} ${field}`)).toEqual([
      'echo-route spec.to[0].rules[0].default.filters[0]',
      'echo-route spec.to[0].rules[0].default.filters[1]',
      'echo-route spec.to[0].rules[1].matches',
    ]);
  });

  for (const kind of ['@grpc/grpc-js-xds', 'python3-grpcio (C-core)'] as const) {
    describe(`with ${kind} calling two real servers`, () => {
      let v1: EchoServer;
      let v2: EchoServer;
      let ads: AdsServer;
      let client: CallingClient;
      const snapshots = new SnapshotCache();
      const recorder = new RecordingCallbacks();
      let version = 0;

      /**
       * Generates the client's resources, applies the plugin with these rules (none: no route
       * policy, the plugin does not run) and publishes them under a new version, which it returns.
       */
      function publish(rules?: HttpRouteRule[]): string {
        const { resources } = rules ? applied(v1.port, v2.port, rules) : twoVersionMesh(v1.port, v2.port);
        const current = `v${++version}`;
        const json = Object.entries(resources.toResources()).map(([typeUrl, list]) => [typeUrl, { version: current, resources: list.map(({ resource }) => resource) }]);
        snapshots.setSnapshot('default.client', snapshotFromJson(Object.fromEntries(json)));
        return current;
      }

      const acked = (routeVersion: string) =>
        recorder.waitFor('request', ({ classification }) => classification.typeUrl === ROUTE_TYPE_URL && classification.kind === 'ack' && classification.version === routeVersion);

      beforeAll(async () => {
        v1 = await startEchoServer('v1');
        v2 = await startEchoServer('v2');
        ads = new AdsServer({ snapshots, callbacks: [recorder] });
        const adsPort = await ads.start({ port: 0 });
        publish(splitRules(90, 10));
        const bootstrap = generateGrpcBootstrap({ nodeId: 'default.client', adsHost: '127.0.0.1', adsPort, locality: { region: 'local', zone: 'default' } });
        client = kind === '@grpc/grpc-js-xds' ? await grpcJsClient(bootstrap) : await pythonClient(bootstrap);
      });

      afterAll(async () => {
        client?.close();
        await ads?.stop();
        await Promise.all([v1?.stop(), v2?.stop()]);
      });

      it('sends a call with the header to v2, every time', async () => {
        expect(await client.answers(100, { 'x-version': 'v2' })).toEqual({ v2: 100 });
      });

      it('splits the other calls 90/10 between v1 and v2 (binomial, within 5 standard deviations)', async () => {
        const counts = await client.answers(CALLS);
        expect((counts['v1'] ?? 0) + (counts['v2'] ?? 0)).toBe(CALLS);
        expect(Math.abs((counts['v2'] ?? 0) - CALLS * 0.1)).toBeLessThanOrEqual(tolerance(0.1));
      });

      it('moves the traffic to 10/90 when the weights change, on the same ADS stream', async () => {
        const streamsBefore = recorder.of('open').length;
        await acked(publish(splitRules(10, 90)));
        const counts = await client.answers(CALLS);
        expect(Math.abs((counts['v2'] ?? 0) - CALLS * 0.9)).toBeLessThanOrEqual(tolerance(0.9));
        expect(recorder.of('open').length).toBe(streamsBefore);
        expect(streamsBefore).toBe(1);
        expect(recorder.of('request').filter(({ classification }) => classification.kind === 'nack')).toEqual([]);
      });

      it('goes back to round robin over both versions when the route policy is removed', async () => {
        await acked(publish());
        const counts = await client.answers(100, { 'x-version': 'v2' });
        // Round robin alternates: about 50 each; the header no longer pins v2.
        expect(Math.min(counts['v1'] ?? 0, counts['v2'] ?? 0)).toBeGreaterThanOrEqual(25);
        expect(recorder.of('open').length).toBe(1);
      });
    });
  }
});

// Each call goes to v2 with probability p; over n calls the count is binomial: mean np, standard
// deviation sqrt(np(1-p)) (9.5 for n 1000, p 0.1). The tolerance is 5 standard deviations: 48.
const CALLS = 1000;
const tolerance = (p: number) => Math.ceil(5 * Math.sqrt(CALLS * p * (1 - p)));

/** A real xDS client of the echo service: which server answered each of `calls` calls. */
interface CallingClient {
  answers(calls: number, headers?: Record<string, string>): Promise<Record<string, number>>;
  close(): void;
}

function count(replies: readonly string[], into: Record<string, number>): void {
  for (const reply of replies) {
    const server = reply.slice(0, reply.indexOf(':'));
    into[server] = (into[server] ?? 0) + 1;
  }
}

async function grpcJsClient(bootstrap: unknown): Promise<CallingClient> {
  await registerGrpcXds();
  const client = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
  return {
    answers: async (calls, headers = {}) => {
      const counts: Record<string, number> = {};
      for (let sent = 0; sent < calls; sent += 50) {
        count(await Promise.all(Array.from({ length: Math.min(50, calls - sent) }, () => client.echo('hi', 5000, headers))), counts);
      }
      return counts;
    },
    close: () => client.close(),
  };
}

async function pythonClient(bootstrap: unknown): Promise<CallingClient> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-'));
  const bootstrapFile = join(dir, 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(bootstrap));
  const client = startPythonEchoClient('xds:///echo', bootstrapFile);
  expect(await client.ready()).toEqual({ ready: true });
  return {
    answers: async (calls, headers) => {
      const counts: Record<string, number> = {};
      for (let call = 0; call < calls; call++) {
        const result = await client.call('hi', headers);
        if (!result.ok) throw new Error(`call failed: ${result.code} ${result.details}`);
        count([result.reply], counts);
      }
      return counts;
    },
    close: () => {
      client.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
