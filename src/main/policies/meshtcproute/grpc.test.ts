// MeshTCPRoute for proxyless gRPC: calls, not connections, are split, through one catch-all route.
import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { destinationClusterName } from '../core/route-clusters.js';
import { echoRules, twoVersionMesh } from '../core/testing/two-version-mesh.js';
import type { MeshHTTPRouteConf } from '../meshhttproute/api.js';
import { applyMeshHTTPRouteToGrpc } from '../meshhttproute/grpc.js';
import type { MeshTCPRouteConf } from './api.js';
import { applyMeshTCPRouteToGrpc } from './grpc.js';

const TCP_ORIGIN: PolicyOrigin = { type: 'MeshTCPRoute', mesh: 'default', name: 'echo-tcp', item: 'spec.to[0]' };
const HTTP_ORIGIN: PolicyOrigin = { type: 'MeshHTTPRoute', mesh: 'default', name: 'echo-http', item: 'spec.to[0]' };
const V1 = destinationClusterName({ 'kuma.io/service': 'echo', version: 'v1' });
const V2 = destinationClusterName({ 'kuma.io/service': 'echo', version: 'v2' });

const split: MeshTCPRouteConf = {
  default: {
    backendRefs: [
      { kind: 'MeshServiceSubset', name: 'echo', tags: { version: 'v1' }, weight: 60 },
      { kind: 'MeshServiceSubset', name: 'echo', tags: { version: 'v2' }, weight: 40 },
    ],
  },
};

const routesOf = (routeConfig: ProtoJson | undefined) => (routeConfig!['virtual_hosts'] as { routes: ProtoJson[] }[])[0]!.routes;

describe('MeshTCPRoute for proxyless gRPC', () => {
  it('sends every call of the destination to its backendRefs by weight, and drops the cluster nothing uses', () => {
    const { context, proxy, resources } = twoVersionMesh(7001, 7002);
    applyMeshTCPRouteToGrpc({ rulesOf: () => emptyProxyRules(), context, proxy, resources, rules: echoRules(split, TCP_ORIGIN), unapplied: () => {} });
    expect(routesOf(resources.get(ROUTE_TYPE_URL, 'echo'))).toEqual([
      {
        match: { prefix: '/' },
        name: '9Zuf5Tg79OuZcQITwBbQykxAk2u4fRKrwYn3//AL4Yo=',
        route: { weighted_clusters: { clusters: [{ name: V1, weight: 60 }, { name: V2, weight: 40 }] } },
      },
    ]);
    expect(resources.list(CLUSTER_TYPE_URL).map(({ name }) => name).sort()).toEqual([V1, V2].sort());
    // The route, and each split cluster and its endpoints as a whole, are the policy's.
    expect(resources.attributions().map(({ resource, path, origins }) => [resource, path, origins])).toEqual([
      ['echo', 'virtual_hosts[0].routes[0].route', [TCP_ORIGIN]],
      [V1, '', [TCP_ORIGIN]],
      [V1, '', [TCP_ORIGIN]],
      [V2, '', [TCP_ORIGIN]],
      [V2, '', [TCP_ORIGIN]],
    ]);
  });

  it('leaves a destination a MeshHTTPRoute took, as Kuma does on HTTP destinations', () => {
    const { context, proxy, resources } = twoVersionMesh(7001, 7002);
    const http: MeshHTTPRouteConf = { rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ kind: 'MeshService', name: 'echo' }] } }] };
    applyMeshHTTPRouteToGrpc({ rulesOf: () => emptyProxyRules(), context, proxy, resources, rules: echoRules(http, HTTP_ORIGIN), unapplied: () => {} });
    const routed = resources.get(ROUTE_TYPE_URL, 'echo');
    applyMeshTCPRouteToGrpc({ rulesOf: () => emptyProxyRules(), context, proxy, resources, rules: echoRules(split, TCP_ORIGIN), unapplied: () => {} });
    expect(resources.get(ROUTE_TYPE_URL, 'echo')).toBe(routed);
    expect(resources.list(CLUSTER_TYPE_URL).map(({ name }) => name)).toEqual(['echo']);
  });
});
