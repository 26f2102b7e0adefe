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
 * Per-Dataplane tokens (required by the ADS server where `xds.dataplaneTokens` says: by default in
 * meshes with mTLS). Every Dataplane has one from the start, which the bootstraps meshdesk gives carry:
 * - `GET /meshes/{mesh}/dataplanes/{name}/token`: that token, as text, for a file (kuma-dp's
 *   `--dataplane-token-file`, the CLI's `--token-file`); 409 when it was revoked;
 * - `POST …/token` issues a new one, replacing (and so revoking) the previous one, answered as JSON;
 * - `DELETE …/token` revokes it (a proxy connected with it is disconnected) until one is issued;
 * - `GET /dataplane-tokens` lists the tokens issued or revoked by hand, and when (never the tokens).
 * A token exists before its Dataplane does (a proxy registers it when connecting), but only in an
 * existing mesh.
 */
export function tokenRoutes(deps: TokenDependencies): Route[] {
  const path = '/meshes/:mesh/dataplanes/:name/token';
  const subjectIn = async (params: Record<string, string | undefined>) => {
    const subject = { mesh: params.mesh!, name: params.name! };
    await deps.manager.get('Mesh', { mesh: '', name: subject.mesh });
    return subject;
  };
  return [
    {
      method: 'GET',
      path,
      handler: async ({ params }) => {
        const subject = await subjectIn(params);
        const token = deps.dataplaneTokens.tokenFor(subject);
        if (token === undefined) {
          throw new ApiError(
            409,
            'Conflict',
            `the token of Dataplane "${subject.name}" in mesh "${subject.mesh}" was revoked or cannot be shown again: issue a new one with POST /meshes/${subject.mesh}/dataplanes/${subject.name}/token`,
          );
        }
        return { text: `${token}\n`, contentType: 'text/plain; charset=utf-8' };
      },
    },
    {
      method: 'POST',
      path,
      handler: async ({ params }) => {
        const issued = deps.dataplaneTokens.issue(await subjectIn(params));
        return { status: 201, json: { ...issued, metadataKey: DATAPLANE_TOKEN_METADATA_KEY } };
      },
    },
    {
      method: 'DELETE',
      path,
      handler: async ({ params }) => {
        const subject = await subjectIn(params);
        if (!deps.dataplaneTokens.revoke(subject)) {
          throw new ApiError(404, 'Could not find a token', `the token of Dataplane "${subject.name}" in mesh "${subject.mesh}" is revoked already`);
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
