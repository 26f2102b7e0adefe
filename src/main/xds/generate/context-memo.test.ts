import { describe, expect, it } from 'vitest';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import { ENDPOINT_TYPE_URL, CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { memoizedForContext } from './context-memo.js';
import { generateProxyResources } from './profile.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';

const TIME = '2026-01-01T00:00:00.000Z';
const MESH: MeshResource = {
  type: 'Mesh',
  meta: { mesh: '', name: 'default', version: 1, creationTime: TIME, modificationTime: TIME, labels: {} },
  spec: {},
};

function dataplane(name: string, networking: DataplaneResource['spec']['networking']): DataplaneResource {
  return { type: 'Dataplane', meta: { mesh: 'default', name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: { networking } };
}

const backend = (port: number) => dataplane('backend-1', { address: '127.0.0.2', inbound: [{ port, tags: { 'kuma.io/service': 'backend' } }] });
const client = (name: string) => dataplane(name, { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] });

function resourceOf(context: ReturnType<typeof buildMeshContext>, name: string, typeUrl: string, kind: ProxyKind = 'envoy') {
  const proxy = { id: `default.${name}`, dataplane: context.dataplanesByName.get(name)!, kind };
  return generateProxyResources(context, proxy)[typeUrl as typeof ENDPOINT_TYPE_URL].find((resource) => resource.name === 'backend')!.resource;
}

describe('memoizedForContext', () => {
  it('builds once per context and key', () => {
    const context = buildMeshContext(MESH, []);
    let builds = 0;
    const first = memoizedForContext(context, 'key', () => ({ build: ++builds }));

    expect(memoizedForContext(context, 'key', () => ({ build: ++builds }))).toBe(first);
    expect(memoizedForContext(context, 'other key', () => ({ build: ++builds }))).toEqual({ build: 2 });
    expect(memoizedForContext(buildMeshContext(MESH, []), 'key', () => ({ build: ++builds }))).toEqual({ build: 3 });
  });

  it('gives two proxies of one context and kind the identical endpoints and cluster objects', () => {
    const context = buildMeshContext(MESH, [backend(18080), client('web-1'), client('web-2')]);

    expect(resourceOf(context, 'web-2', ENDPOINT_TYPE_URL)).toBe(resourceOf(context, 'web-1', ENDPOINT_TYPE_URL));
    expect(resourceOf(context, 'web-2', CLUSTER_TYPE_URL)).toBe(resourceOf(context, 'web-1', CLUSTER_TYPE_URL));
    // gRPC reads endpoints only inside a weighted locality, Envoy sidecars get them in none (as Kuma's).
    expect(resourceOf(context, 'web-2', ENDPOINT_TYPE_URL, 'grpc')).toBe(resourceOf(context, 'web-1', ENDPOINT_TYPE_URL, 'grpc'));
  });

  it('gives a context with a changed endpoint new endpoints, holding the new port', () => {
    const before = buildMeshContext(MESH, [backend(18080), client('web-1')]);
    const after = buildMeshContext(MESH, [backend(18081), client('web-1')]);
    const endpoints = resourceOf(after, 'web-1', ENDPOINT_TYPE_URL);

    expect(endpoints).not.toBe(resourceOf(before, 'web-1', ENDPOINT_TYPE_URL));
    expect(JSON.stringify(endpoints)).toContain('"port_value":18081');
  });
});
