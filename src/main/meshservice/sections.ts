// A destination's sections (Kuma's `GetName()` of a port): a port's `name`, or its number as text.
import type { MeshExternalServiceSpec, MeshMultiZoneServiceSpec, MeshServiceSpec } from '../../shared/meshservice-types.js';
import type { Resource } from '../../shared/resources.js';

export interface Section {
  port: number;
  name: string;
}

export function sectionsOf(resource: Pick<Resource, 'type' | 'spec'>): Section[] {
  switch (resource.type) {
    case 'MeshService':
    case 'MeshMultiZoneService':
      return ((resource.spec as MeshServiceSpec | MeshMultiZoneServiceSpec).ports ?? []).map((port) => ({
        port: port.port,
        name: port.name ?? String(port.port),
      }));
    case 'MeshExternalService': {
      // A single port, always named by its number.
      const port = (resource.spec as MeshExternalServiceSpec).match?.port ?? 0;
      return [{ port, name: String(port) }];
    }
    default:
      return [];
  }
}
