import { isPolicyType } from '../../shared/policy-types.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { validateResource } from '../resources/validate.js';
import { ApiError, titled } from './api-error.js';
import { asPolicy } from './policy-preview-routes.js';
import { warningsNow } from './policy-warnings.js';
import { readBody } from './resource-routes.js';
import type { Route } from './router.js';

/**
 * `POST /meshes/{mesh}/_policy-warnings`: the body is a policy as PUT takes it (validated the same
 * way, the same 400); the answer is `{warnings}` as the PUT would give them, without writing.
 */
export function policyWarningsRoutes(deps: { manager: ReadOnlyResourceManager }): Route[] {
  return [
    {
      method: 'POST',
      path: '/meshes/:mesh/_policy-warnings',
      handler: async ({ params, body }) => {
        const mesh = params.mesh!;
        await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: mesh }));
        const raw = readBody('policy', await body());
        const type = (raw as { type?: unknown } | null)?.type;
        if (typeof type !== 'string' || !isPolicyType(type)) {
          throw new ApiError(400, 'Bad Request', `warnings are for one policy, got ${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}`, [
            { field: 'type', message: 'must be a policy type (GET /_resources lists them)' },
          ]);
        }
        const input = await titled('Could not process a resource', async () => validateResource(raw, { type, mesh }));
        return { json: { warnings: await warningsNow(deps.manager, asPolicy(input, undefined)) } };
      },
    },
  ];
}
