import type { ResourceManager } from '../manager/interfaces.js';
import { exportResources } from '../transfer/export.js';
import { ExistingResourcesError, importResources } from '../transfer/import.js';
import { ApiError } from './api-error.js';
import type { BodyReaderPool } from './body-reading/body-reader-pool.js';
import type { Route } from './router.js';

/** `GET /export` (the store as `kumactl apply -f` YAML) and `POST /import` (that, or `kumactl get -o yaml` output). */
export function transferRoutes(manager: ResourceManager, bodyReader: BodyReaderPool): Route[] {
  return [
    {
      method: 'GET',
      path: '/export',
      handler: async ({ query }) => {
        const { text } = await exportResources(manager, { includeProxyRegistered: booleanFlag(query, 'includeProxyRegistered') });
        return { text, contentType: 'application/yaml' };
      },
    },
    {
      method: 'POST',
      path: '/import',
      handler: async ({ query, body }) => {
        const options = { overwrite: booleanFlag(query, 'overwrite'), dryRun: booleanFlag(query, 'dryRun') };
        try {
          const documents = await bodyReader.read('import', await body(), undefined);
          return { json: await importResources(manager, documents, options) };
        } catch (error) {
          if (error instanceof ExistingResourcesError) throw new ApiError(409, 'Resources already exist', error.message, error.violations);
          throw error;
        }
      },
    },
  ];
}

/** `?name=true` or `?name=false`; absent is false. Anything else is refused rather than guessed. */
function booleanFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === 'false') return false;
  if (value === 'true') return true;
  throw new ApiError(400, 'Bad request', `query parameter ${name} must be true or false, got "${value}"`, [
    { field: name, message: 'must be true or false' },
  ]);
}
