import type { DataplaneResource } from '../../shared/resources.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { ValidationError } from '../resources/validation-error.js';
import { ResourceNotFoundError } from '../store/errors.js';
import type { BodyReaderPool } from './body-reading/body-reader-pool.js';
import { bootstrapReply, type BootstrapDependencies } from './bootstrap-routes.js';
import type { Route } from './router.js';

/**
 * `POST /bootstrap`: the bootstrap for a Dataplane posted in the body (YAML or JSON, Kuma's shape),
 * rendered without storing it; same `?proxyType=`, `?format=` and `?token=` as the stored Dataplane's bootstrap.
 *
 * This is the universal flow's way in: the Dataplane rides in the bootstrap's node metadata and the
 * proxy registers it when it connects (and it is deregistered when the proxy goes away), so nothing
 * needs to be written before the proxy starts. An invalid Dataplane answers 400 with every violation
 * by field path, so a form can show them at its fields before anything runs.
 */
export interface BootstrapPreviewDependencies extends BootstrapDependencies {
  bodyReader: BodyReaderPool;
}

export function bootstrapPreviewRoutes(deps: BootstrapPreviewDependencies): Route[] {
  return [
    {
      method: 'POST',
      path: '/bootstrap',
      handler: async ({ body, query }) => {
        const input = await deps.bodyReader.read('dataplane', await body(), undefined);
        await requireMesh(deps.manager, input.mesh);
        const now = new Date().toISOString();
        const dataplane: DataplaneResource = {
          type: 'Dataplane',
          meta: { mesh: input.mesh, name: input.name, version: 0, creationTime: now, modificationTime: now, labels: input.labels },
          spec: input.spec,
        };
        return bootstrapReply(dataplane, query, deps);
      },
    },
  ];
}

/** The proxy would be refused on connect for a mesh that does not exist: say so at the field now. */
async function requireMesh(manager: ReadOnlyResourceManager, mesh: string): Promise<void> {
  try {
    await manager.get('Mesh', { mesh: '', name: mesh });
  } catch (error) {
    if (!(error instanceof ResourceNotFoundError)) throw error;
    throw new ValidationError('Dataplane cannot be bootstrapped', [{ field: 'mesh', message: `mesh "${mesh}" does not exist` }]);
  }
}
