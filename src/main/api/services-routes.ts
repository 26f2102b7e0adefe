import type { ServicesView } from '../../shared/services-types.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { StatusTracker } from '../xds/callbacks/status-tracker.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { titled } from './api-error.js';
import type { Route } from './router.js';
import { servicesView } from './services-view.js';

export interface ServicesDependencies {
  manager: ReadOnlyResourceManager;
  meshContexts: { get(mesh: string): Promise<MeshContext> };
  statusTracker: Pick<StatusTracker, 'status'>;
}

/**
 * meshdesk's `GET /meshes/{mesh}/_services`: every service of the mesh (tag services and
 * MeshServices) with its ports, VIPs, hostnames and endpoints, and every caller's outbound to it
 * with its route split, permission decision and the policies that reach it (docs/api.md).
 */
export function servicesRoutes(deps: ServicesDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/_services',
      handler: async ({ params }) => {
        await titled('Could not retrieve a resource', () => deps.manager.get('Mesh', { mesh: '', name: params.mesh! }));
        const context = await deps.meshContexts.get(params.mesh!);
        return { json: servicesView(context, (proxyId) => deps.statusTracker.status(proxyId)) satisfies ServicesView };
      },
    },
  ];
}
