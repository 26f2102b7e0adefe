import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { DataplaneTokens } from '../security/dataplane-tokens.js';
import { DATAPLANE_TOKEN_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { ApiError } from './api-error.js';
import type { Route } from './router.js';

export interface TokenDependencies {
  manager: ReadOnlyResourceManager;
  dataplaneTokens: DataplaneTokens;
}

/**
 * Per-Dataplane tokens (checked by the ADS server when `xds.dataplaneTokens` is enabled):
 * - `POST /meshes/{mesh}/dataplanes/{name}/token` issues a new random token, replacing (and so
 *   revoking) any previous one, and answers it once: only its hash is stored;
 * - `DELETE /meshes/{mesh}/dataplanes/{name}/token` revokes it (a proxy connected with it is disconnected);
 * - `GET /dataplane-tokens` lists which Dataplanes have a token, and since when (never the tokens).
 * A token can be issued before its Dataplane exists (a proxy registers it when connecting), but
 * only in an existing mesh.
 */
export function tokenRoutes(deps: TokenDependencies): Route[] {
  const path = '/meshes/:mesh/dataplanes/:name/token';
  return [
    {
      method: 'POST',
      path,
      handler: async ({ params }) => {
        const subject = { mesh: params.mesh!, name: params.name! };
        await deps.manager.get('Mesh', { mesh: '', name: subject.mesh });
        const issued = deps.dataplaneTokens.issue(subject);
        return { status: 201, json: { ...issued, metadataKey: DATAPLANE_TOKEN_METADATA_KEY } };
      },
    },
    {
      method: 'DELETE',
      path,
      handler: ({ params }) => {
        const subject = { mesh: params.mesh!, name: params.name! };
        if (!deps.dataplaneTokens.revoke(subject)) {
          throw new ApiError(404, 'Could not find a token', `Dataplane "${subject.name}" in mesh "${subject.mesh}" has no token`);
        }
        return { json: {} };
      },
    },
    {
      method: 'GET',
      path: '/dataplane-tokens',
      handler: () => {
        const items = deps.dataplaneTokens.list();
        return { json: { total: items.length, items, next: null } };
      },
    },
  ];
}
