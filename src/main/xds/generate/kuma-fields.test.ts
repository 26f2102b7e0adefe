// Dataplanes with Kuma fields the generators do not serve yet (tags-less inbounds, backendRef
// outbounds) are valid and stored; generating for them must still work for what is served.
import { describe, expect, it } from 'vitest';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { validateResource } from '../../resources/validate.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import { LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { generateProxyResources } from './profile.js';

const TIME = '2026-01-01T00:00:00.000Z';

function stored(body: unknown): DataplaneResource {
  const { mesh, name, labels, spec } = validateResource(body, { type: 'Dataplane' });
  return { type: 'Dataplane', meta: { mesh, name, labels, version: 1, creationTime: TIME, modificationTime: TIME }, spec };
}

describe('generating for a Dataplane with Kuma fields meshdesk does not serve yet', () => {
  it('skips the tags-less inbound and the backendRef outbound, and generates the rest', () => {
    const dataplane = stored({
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: {
        address: '127.0.0.1',
        inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web' } }, { port: 18081 }],
        outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }, { port: 10002, backendRef: { kind: 'MeshService', name: 'payments', port: 80 } }],
      },
    });
    const mesh: MeshResource = { type: 'Mesh', meta: { mesh: '', name: 'default', labels: {}, version: 1, creationTime: TIME, modificationTime: TIME }, spec: {} };
    const context = buildMeshContext(mesh, [dataplane]);

    const listeners = (kind: 'envoy' | 'grpc') =>
      (generateProxyResources(context, { id: 'default.web-1', dataplane, kind })[LISTENER_TYPE_URL] ?? []).map(({ name }) => name).sort();

    expect(listeners('envoy')).toEqual(['inbound:127.0.0.1:18080', 'outbound:127.0.0.1:10001']);
    // A gRPC proxy gets the client's API listener, and the listener an xDS-enabled server would ask for.
    expect(listeners('grpc')).toEqual(['grpc/server?xds.resource.listening_address=127.0.0.1:18080', 'web']);
  });
});
