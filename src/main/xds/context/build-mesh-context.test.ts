import { describe, expect, it } from 'vitest';
import type { DataplaneResource, DataplaneSpec, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext, hashMeshContextInputs } from './build-mesh-context.js';

const TIME = '2024-01-01T00:00:00.000Z';

function mesh(name = 'default', version = 1): MeshResource {
  return { type: 'Mesh', meta: { mesh: '', name, version, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: {} };
}

function dataplane(name: string, networking: DataplaneSpec['networking'], version = 1): DataplaneResource {
  return {
    type: 'Dataplane',
    meta: { mesh: 'default', name, version, creationTime: TIME, modificationTime: TIME, labels: {} },
    spec: { networking },
  };
}

const backend1 = dataplane('backend-1', {
  address: '127.0.0.3',
  inbound: [
    { port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } },
    { port: 19090, address: '127.0.0.9', tags: { 'kuma.io/service': 'admin' } },
  ],
});
const backend2 = dataplane('backend-2', {
  address: '10.0.0.4',
  advertisedAddress: '127.0.0.4',
  inbound: [{ port: 18080, address: '10.0.0.5', tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }],
});
const web1 = dataplane('web-1', {
  address: '127.0.0.1',
  outbound: [{ port: 10002, tags: { 'kuma.io/service': 'backend' } }],
});

describe('buildMeshContext', () => {
  it('indexes the dataplanes by name, sorted', () => {
    const context = buildMeshContext(mesh(), [web1, backend2, backend1]);

    expect(context.mesh.meta.name).toBe('default');
    expect([...context.dataplanesByName.keys()]).toEqual(['backend-1', 'backend-2', 'web-1']);
    expect(context.dataplanesByName.get('web-1')).toBe(web1);
  });

  it('lists every inbound as an endpoint of its service, addressed by advertised, inbound, then Dataplane address (Kuma\'s DataplaneAdvertisedIP)', () => {
    const context = buildMeshContext(mesh(), [web1, backend2, backend1]);

    expect([...context.endpointsByService.keys()]).toEqual(['admin', 'backend']);
    expect(context.endpointsByService.get('backend')).toEqual([
      {
        dataplane: 'backend-1',
        address: '127.0.0.3',
        port: 18080,
        tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' },
        labels: {},
        protocol: 'http',
        weight: 1,
      },
      {
        dataplane: 'backend-2',
        address: '127.0.0.4',
        port: 18080,
        tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' },
        labels: {},
        protocol: 'http',
        weight: 1,
      },
    ]);
    expect(context.endpointsByService.get('admin')).toEqual([
      { dataplane: 'backend-1', address: '127.0.0.9', port: 19090, tags: { 'kuma.io/service': 'admin' }, labels: {}, protocol: 'tcp', weight: 1 },
    ]);
  });

  it('treats an unknown protocol tag as tcp', () => {
    const odd = dataplane('odd-1', {
      address: '127.0.0.1',
      inbound: [{ port: 1, tags: { 'kuma.io/service': 'odd', 'kuma.io/protocol': 'kafka' } }],
    });

    expect(buildMeshContext(mesh(), [odd]).endpointsByService.get('odd')![0]!.protocol).toBe('tcp');
  });

  it('gives the same context and hash whatever the order of the dataplanes', () => {
    const one = buildMeshContext(mesh(), [web1, backend2, backend1]);
    const other = buildMeshContext(mesh(), [backend1, web1, backend2]);

    expect(other).toEqual(one);
    expect([...other.endpointsByService.keys()]).toEqual([...one.endpointsByService.keys()]);
    expect(other.hash).toBe(one.hash);
  });

  it('changes the hash when a dataplane version changes', () => {
    const before = buildMeshContext(mesh(), [web1, backend1]);
    const after = buildMeshContext(mesh(), [web1, { ...backend1, meta: { ...backend1.meta, version: 2 } }]);

    expect(after.hash).not.toBe(before.hash);
  });

  it('changes the hash when a dataplane is re-created with another spec at the same version', () => {
    const recreated = dataplane('backend-1', { address: '127.0.0.30', inbound: backend1.spec.networking.inbound });

    expect(hashMeshContextInputs(mesh(), [web1, recreated])).not.toBe(hashMeshContextInputs(mesh(), [web1, backend1]));
  });

  it('changes the hash when a dataplane joins or the mesh changes', () => {
    const base = hashMeshContextInputs(mesh(), [web1]);

    expect(hashMeshContextInputs(mesh(), [web1, backend1])).not.toBe(base);
    expect(hashMeshContextInputs(mesh('default', 2), [web1])).not.toBe(base);
  });

  it('keeps the hash when only times change, as no configuration depends on them', () => {
    const touched = { ...web1, meta: { ...web1.meta, modificationTime: '2025-01-01T00:00:00.000Z' } };

    expect(hashMeshContextInputs(mesh(), [touched])).toBe(hashMeshContextInputs(mesh(), [web1]));
  });

  it('changes the hash when a dataplane is re-created with other labels at the same version, as its endpoints carry them', () => {
    const relabelled = { ...backend1, meta: { ...backend1.meta, labels: { team: 'a' } } };

    expect(hashMeshContextInputs(mesh(), [relabelled])).not.toBe(hashMeshContextInputs(mesh(), [backend1]));
    expect(buildMeshContext(mesh(), [relabelled]).endpointsByService.get('admin')![0]!.labels).toEqual({ team: 'a' });
  });

  it('keeps the hash when only the key order of a spec differs', () => {
    const reordered = dataplane('web-1', { outbound: web1.spec.networking.outbound, address: '127.0.0.1' });

    expect(hashMeshContextInputs(mesh(), [reordered])).toBe(hashMeshContextInputs(mesh(), [web1]));
  });

  it('puts hashMeshContextInputs in the context, so a cache can compare without building', () => {
    expect(buildMeshContext(mesh(), [backend1, web1]).hash).toBe(hashMeshContextInputs(mesh(), [web1, backend1]));
  });

  it('refuses a dataplane of another mesh', () => {
    const foreign = { ...web1, meta: { ...web1.meta, mesh: 'other' } };

    expect(() => buildMeshContext(mesh(), [foreign])).toThrow(
      'cannot build the context of mesh "default": Dataplane "web-1" belongs to mesh "other"',
    );
  });
});
