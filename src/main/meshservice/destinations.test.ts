import { describe, expect, it } from 'vitest';
import type { MeshResource, Resource } from '../../shared/resources.js';
import { buildMeshContext, hashMeshContextInputs } from '../xds/context/build-mesh-context.js';

const mesh = { type: 'Mesh', meta: { mesh: '', name: 'default', labels: {}, version: 1, creationTime: 't', modificationTime: 't' }, spec: {} } as MeshResource;

function meshService(status: Resource<'MeshService'>['status'], version = 1): Resource<'MeshService'> {
  return {
    type: 'MeshService',
    meta: { mesh: 'default', name: 'web', labels: { 'kuma.io/zone': 'default' }, version, creationTime: 't', modificationTime: `m${version}` },
    spec: { selector: { dataplaneTags: { 'kuma.io/service': 'web' } }, ports: [{ port: 80, targetPort: 8080, appProtocol: 'http' }] },
    status,
  };
}

const hashWith = (service: Resource<'MeshService'>) =>
  hashMeshContextInputs(mesh, [], [], { meshServices: [service], meshExternalServices: [], meshMultiZoneServices: [] });

describe('MeshContext destinations', () => {
  it('carries the mesh’s MeshServices, and its hash ignores what the status updater rewrites as proxies come and go', () => {
    const before = meshService({ vips: [{ ip: '241.0.0.0' }], tls: { status: 'NotReady' }, dataplaneProxies: { total: 1 } });
    const joined = meshService({ vips: [{ ip: '241.0.0.0' }], tls: { status: 'NotReady' }, dataplaneProxies: { connected: 2, healthy: 2, total: 2 } }, 1);
    expect(hashWith(joined)).toBe(hashWith(before));
    expect(hashWith(meshService({ vips: [{ ip: '241.0.0.1' }] }))).not.toBe(hashWith(meshService({ vips: [{ ip: '241.0.0.0' }] })));
    expect(hashWith(meshService({ tls: { status: 'Ready' } }))).not.toBe(hashWith(meshService({ tls: { status: 'NotReady' } })));
    const context = buildMeshContext(mesh, [], { destinations: { meshServices: [before], meshExternalServices: [], meshMultiZoneServices: [] } });
    expect(context.destinations.meshServices).toEqual([before]);
  });

  it('leaves the hash of a mesh without destinations as it was', () => {
    expect(hashMeshContextInputs(mesh, [], [], { meshServices: [], meshExternalServices: [], meshMultiZoneServices: [] })).toBe(hashMeshContextInputs(mesh, []));
  });
});
