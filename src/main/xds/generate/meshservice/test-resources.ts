// Resources for the MeshService outbound tests, as the cached manager hands them to the context
// (tests only).
import type { MeshServiceSpec, MeshServiceStatus } from '../../../../shared/meshservice-types.js';
import type { DataplaneSpec, MeshResource, MeshSpec, Resource, ResourceType } from '../../../../shared/resources.js';

const TIME = '2026-01-01T00:00:00Z';

function meta(mesh: string, name: string, labels: Record<string, string> = {}, creationTime = TIME): Resource<ResourceType>['meta'] {
  return { mesh, name, version: 1, creationTime, modificationTime: creationTime, labels };
}

export function testMesh(name: string, spec: MeshSpec = {}): MeshResource {
  return { type: 'Mesh', meta: meta('', name), spec };
}

export function testDataplane(mesh: string, name: string, spec: DataplaneSpec, labels?: Record<string, string>): Resource<'Dataplane'> {
  return { type: 'Dataplane', meta: meta(mesh, name, labels), spec };
}

export function testMeshService(
  mesh: string,
  name: string,
  spec: MeshServiceSpec,
  { labels, status, creationTime }: { labels?: Record<string, string>; status?: MeshServiceStatus; creationTime?: string } = {},
): Resource<'MeshService'> {
  return { type: 'MeshService', meta: meta(mesh, name, labels, creationTime), spec, ...(status && { status }) };
}
