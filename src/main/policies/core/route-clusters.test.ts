import { describe, expect, it } from 'vitest';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { ResourceSet } from '../../xds/generate/resources.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { EnvoyResources } from './envoy-resources.js';
import { RouteClusters } from './route-clusters.js';

const TIME = '2026-01-01T00:00:00.000Z';
const meta = (mesh: string, name: string) => ({ mesh, name, labels: {}, version: 1, creationTime: TIME, modificationTime: TIME });
const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode: 'STRICT' as const }] };

function contextOf(mtls?: typeof MTLS) {
  const mesh: MeshResource = { type: 'Mesh', meta: meta('', 'mesh1'), spec: mtls ? { mtls } : {} };
  const db: DataplaneResource = {
    type: 'Dataplane',
    meta: meta('mesh1', 'db-1'),
    spec: { networking: { address: '10.0.0.2', inbound: [{ port: 5432, tags: { 'kuma.io/service': 'db', role: 'replica', 'kuma.io/protocol': 'http' } }] } },
  };
  return buildMeshContext(mesh, [db]);
}

/** The cluster a route's split to the `db` replicas makes. */
function subsetCluster(mtls: typeof MTLS | undefined, reader: 'envoy' | 'grpc') {
  const context = contextOf(mtls);
  const clusters = new RouteClusters(context, reader);
  const split = clusters.split({ kind: 'MeshServiceSubset', name: 'db', tags: { role: 'replica' } }, 'http', [])!;
  const resources = new EnvoyResources(new ResourceSet().toResources(), context);
  clusters.putInto(resources);
  return resources.get(CLUSTER_TYPE_URL, split.cluster)!;
}

describe('a route’s subset cluster in a mesh with mTLS', () => {
  it('dials over mTLS, with the subset’s tags in Kuma’s SNI (Envoy) or from the certificate providers (gRPC)', () => {
    const envoy = JSON.stringify(subsetCluster(MTLS, 'envoy'));
    expect(envoy).toContain('"sni":"db{mesh=mesh1,role=replica}"');
    expect(envoy).toContain('"exact":"spiffe://mesh1/db"');
    expect(JSON.stringify(subsetCluster(MTLS, 'grpc'))).toContain('"instance_name":"identity_cert:secret:mesh1"');
    expect(subsetCluster(undefined, 'envoy').transport_socket).toBeUndefined();
  });
});
