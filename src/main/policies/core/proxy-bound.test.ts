import { describe, expect, it } from 'vitest';
import type { DataplaneResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { GeneratedResources } from '../../xds/generate/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import { EnvoyResources } from './envoy-resources.js';
import { bindProxyValues, ProxyBoundValue } from './proxy-bound.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

const proxyName = new ProxyBoundValue('the proxy name', (proxy) => proxy.dataplane.meta.name);

const NOTHING_GENERATED = Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, []])) as unknown as GeneratedResources;

/** The clusters as a plugin puts them: the generators write no markers. */
function putByPlugins(clusters: Record<string, ProtoJson>): EnvoyResources {
  const resources = new EnvoyResources(NOTHING_GENERATED);
  for (const [name, resource] of Object.entries(clusters)) resources.put(CLUSTER_TYPE_URL, name, resource);
  return resources;
}

function proxyFor(name: string, tags: Record<string, string> = { 'kuma.io/service': name }): Proxy {
  return { id: `default.${name}`, dataplane: dataplaneResource(name, [{ port: 8080, tags }]), kind: 'envoy' };
}

describe('bindProxyValues', () => {
  it("writes each proxy's value at every marker, copying only the path to it", () => {
    const untouched = Object.freeze({ thresholds: Object.freeze([Object.freeze({ max_connections: 10 })]) });
    const cluster = { name: 'web', circuit_breakers: untouched, metadata: { a: { value: proxyName }, b: [proxyName] } };
    const plain = { name: 'plain' };
    const resources = putByPlugins({ web: cluster, plain });

    bindProxyValues(resources, proxyFor('web-1'));

    const bound = resources.get(CLUSTER_TYPE_URL, 'web')!;
    expect(bound).toEqual({ name: 'web', circuit_breakers: untouched, metadata: { a: { value: 'web-1' }, b: ['web-1'] } });
    expect(bound['circuit_breakers']).toBe(untouched);
    expect(resources.get(CLUSTER_TYPE_URL, 'plain')).toBe(plain);
    // The shared resource keeps its marker for the next proxy.
    expect(cluster.metadata.a.value).toBe(proxyName);
  });

  it('gives proxies with equal values the same object, and others their own', () => {
    const shared = { name: 'web', metadata: { value: proxyName } };
    const bind = (name: string) => {
      const resources = putByPlugins({ web: shared });
      bindProxyValues(resources, proxyFor(name));
      return resources.get(CLUSTER_TYPE_URL, 'web');
    };
    expect(bind('web-1')).toBe(bind('web-1'));
    expect(bind('web-2')).toEqual({ name: 'web', metadata: { value: 'web-2' } });
  });
});

describe('MeshHealthCheck with the proxy tags bound last', () => {
  const backend = dataplaneResource('backend-1', [{ port: 9000, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }], { address: '127.0.0.2' });
  const client = (name: string, service: string): DataplaneResource => {
    const dataplane = dataplaneResource(name, [{ port: 8080, tags: { 'kuma.io/service': service } }]);
    return { ...dataplane, spec: { networking: { ...dataplane.spec.networking, outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] } } };
  };
  const [web, api] = [client('web-1', 'web'), client('api-1', 'api')];
  const policies = [
    policyResource('MeshHealthCheck', 'checks', { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { http: { path: '/health' } } }] }),
    policyResource('MeshCircuitBreaker', 'limits', {
      targetRef: { kind: 'Mesh' },
      to: [{ targetRef: { kind: 'Mesh' }, default: { connectionLimits: { maxConnections: 7 } } }],
    }),
  ];
  const context = buildMeshContext(meshResource(), [web, api, backend], { policies });
  const clusterOf = (dataplane: DataplaneResource) =>
    generateProxy(context, { id: `default.${dataplane.meta.name}`, dataplane, kind: 'envoy' }).resources[CLUSTER_TYPE_URL].find(({ name }) => name === 'backend')!
      .resource as { health_checks: { http_health_check: { request_headers_to_add: { header: { value: unknown } }[] } }[]; circuit_breakers: unknown };

  it("sends each proxy's own tags, while the edits of later plugins are made once for both proxies", () => {
    const [fromWeb, fromApi] = [clusterOf(web), clusterOf(api)];
    expect(fromWeb.health_checks[0]!.http_health_check.request_headers_to_add[0]!.header.value).toBe('&kuma.io/service=web&');
    expect(fromApi.health_checks[0]!.http_health_check.request_headers_to_add[0]!.header.value).toBe('&kuma.io/service=api&');
    // MeshCircuitBreaker ran after MeshHealthCheck on one shared cluster, not on one per proxy.
    expect(fromApi.circuit_breakers).toBe(fromWeb.circuit_breakers);
  });
});
