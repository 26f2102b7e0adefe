// Kuma's inspection endpoints of the service model (pkg/api-server/inspect_mesh_service.go):
// `GET /meshes/{mesh}/meshservices/{name}/_dataplanes` and `GET /meshes/{mesh}/{serviceType}/{name}/_hostnames`.
import type { DestinationType } from '../../shared/meshservice-types.js';
import { ApiError, titled } from '../api/api-error.js';
import type { Route } from '../api/router.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { ZONE_TAG } from '../resources/computed-labels.js';
import { SERVICE_MODEL_DESCRIPTORS } from './descriptors.js';
import { generateHostname } from './hostnames.js';
import { selectedDataplanes } from './match.js';
import { withZoneTags } from '../xds/context/zone-tag.js';

const DESTINATION_PATHS = new Map(
  SERVICE_MODEL_DESCRIPTORS.filter((descriptor) => descriptor.type !== 'HostnameGenerator').map((descriptor) => [descriptor.path, descriptor.type as DestinationType]),
);

export function serviceModelRoutes(manager: ReadOnlyResourceManager, zone: string): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/meshservices/:name/_dataplanes',
      handler: async ({ params }) => {
        const mesh = params.mesh!;
        const meshService = await titled('Could not retrieve a resource', () => manager.get('MeshService', { mesh, name: params.name! }));
        const meshResource = await titled('Failed to retrieve Mesh', () => manager.get('Mesh', { mesh: '', name: mesh }));
        // With the zone in their inbounds' tags, as Kuma stores them.
        const stored = (await manager.list('Dataplane', { mesh })).map((dataplane) => withZoneTags(dataplane, meshResource, zone));
        const items = selectedDataplanes(meshService.spec, stored).map(({ type, meta }) => ({ labels: meta.labels, mesh: meta.mesh, name: meta.name, type }));
        return { json: { items, total: items.length } };
      },
    },
    {
      method: 'GET',
      path: '/meshes/:mesh/:serviceType/:name/_hostnames',
      handler: async ({ params }) => {
        const type = DESTINATION_PATHS.get(params.serviceType!);
        if (type === undefined) {
          throw new ApiError(400, 'Bad Request', `only ${JSON.stringify([...DESTINATION_PATHS.keys()].join(','))} are available for inspection`);
        }
        const service = await titled('could not retrieve service', () => manager.get(type, { mesh: params.mesh!, name: params.name! }));
        const generators = await manager.list('HostnameGenerator');
        const zone = service.meta.labels[ZONE_TAG] ?? '';
        const zonesByHostname = new Map<string, Set<string>>();
        for (const generator of generators) {
          // A read-only view: hostnames that fail today's DNS check are shown, as Kuma does.
          const hostname = await titled('could not generate hostname', async () => generateHostname(zone, generator, service, { validateDns: false }));
          if (hostname === '') continue;
          zonesByHostname.set(hostname, (zonesByHostname.get(hostname) ?? new Set()).add(zone));
        }
        const items = [...zonesByHostname.keys()].sort().map((hostname) => ({
          hostname,
          zones: [...zonesByHostname.get(hostname)!].sort().map((name) => ({ name })),
        }));
        return { json: { items, total: items.length } };
      },
    },
  ];
}
