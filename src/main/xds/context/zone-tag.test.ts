import { describe, expect, it } from 'vitest';
import type { DataplaneResource, DataplaneSpec, MeshResource, MeshSpec } from '../../../shared/resources.js';
import { clusterLoadAssignment } from '../generate/endpoints.js';
import { buildMeshContext } from './build-mesh-context.js';

const TIME = '2024-01-01T00:00:00.000Z';

function mesh(spec: MeshSpec = {}): MeshResource {
  return { type: 'Mesh', meta: { mesh: '', name: 'default', version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec };
}

function dataplane(name: string, labels: Record<string, string>, networking: DataplaneSpec['networking']): DataplaneResource {
  return { type: 'Dataplane', meta: { mesh: 'default', name, version: 1, creationTime: TIME, modificationTime: TIME, labels }, spec: { networking } };
}

const backend = (name: string, address: string, labels: Record<string, string> = {}) =>
  dataplane(name, labels, {
    address,
    inbound: [
      { port: 18080, tags: { 'kuma.io/service': 'backend', version: 'v1' } },
      { port: 18081, name: 'metrics' },
    ],
  });

describe("the zone Kuma's Dataplane manager writes into inbound tags", () => {
  it("tags every inbound with the control plane's zone where the generators read tags, and leaves the stored spec alone", () => {
    const stored = backend('backend-1', '127.0.0.2', { 'kuma.io/zone': 'elsewhere' });
    const context = buildMeshContext(mesh(), [stored], { zone: 'zone-a' });

    expect(context.dataplanesByName.get('backend-1')!.spec.networking.inbound).toEqual([
      { port: 18080, tags: { 'kuma.io/service': 'backend', version: 'v1', 'kuma.io/zone': 'zone-a' } },
      { port: 18081, name: 'metrics', tags: { 'kuma.io/zone': 'zone-a' } },
    ]);
    expect(stored.spec.networking.inbound![0]!.tags).toEqual({ 'kuma.io/service': 'backend', version: 'v1' });
    expect(context.endpointsByService.get('backend')).toEqual([
      expect.objectContaining({ zone: 'zone-a', tags: { 'kuma.io/service': 'backend', version: 'v1', 'kuma.io/zone': 'zone-a' } }),
    ]);
  });

  it('skips tag-less inbounds when the mesh has Exclusive MeshServices, as Kuma does', () => {
    const context = buildMeshContext(mesh({ meshServices: { mode: 'Exclusive' } }), [backend('backend-1', '127.0.0.2')], { zone: 'zone-a' });

    expect(context.dataplanesByName.get('backend-1')!.spec.networking.inbound![1]).toEqual({ port: 18081, name: 'metrics' });
  });

  it("adds nothing without a control plane's zone, as Kuma's generator tests hand Dataplanes in", () => {
    const stored = backend('backend-1', '127.0.0.2');

    expect(buildMeshContext(mesh(), [stored]).dataplanesByName.get('backend-1')).toBe(stored);
  });

  it("groups an assignment's endpoints by zone (tag, else label) as Kuma's localities, no zone first, for Envoy", () => {
    const context = buildMeshContext(mesh(), [
      backend('backend-1', '127.0.0.2', { 'kuma.io/zone': 'zone-b' }),
      dataplane('backend-2', {}, { address: '127.0.0.3', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'backend', 'kuma.io/zone': 'zone-a' } }] }),
      backend('backend-3', '127.0.0.4'),
      backend('backend-4', '127.0.0.5', { 'kuma.io/zone': 'zone-b' }),
    ]);
    const assignment = clusterLoadAssignment('backend', context.endpointsByService.get('backend')!, 'default', 'envoy') as {
      endpoints: { locality?: { zone: string }; priority?: number; lb_endpoints: { endpoint: { address: { socket_address: { address: string } } } }[] }[];
    };

    expect(
      assignment.endpoints.map(({ locality, lb_endpoints }) => [locality, lb_endpoints.map((each) => each.endpoint.address.socket_address.address)]),
    ).toEqual([
      [undefined, ['127.0.0.4']],
      [{ zone: 'zone-a' }, ['127.0.0.3']],
      [{ zone: 'zone-b' }, ['127.0.0.2', '127.0.0.5']],
    ]);
  });
});
