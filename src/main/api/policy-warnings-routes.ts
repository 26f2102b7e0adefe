import { isPolicyType } from '../../shared/policy-types.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { validateResource } from '../resources/validate.js';
import { ApiError, titled } from './api-error.js';
import { asPolicy } from './policy-preview-routes.js';
import { checkPolicyNow } from './policy-warnings.js';
import { parseBody } from './body-reading/parse-body.js';
import type { Route } from './router.js';
import type { PolicyWarningsBody } from '../../shared/api-types.js';

/**
 * `POST /meshes/{mesh}/_policy-warnings`: the body is a policy as PUT takes it; the answer is
 * `{warnings}` as the PUT would give them, without writing. A policy the PUT would refuse (invalid,
 * or its mesh missing) is answered `{warnings: [], refusal}` with the PUT's status, title and detail:
 * the editors ask as the user types, and a refusal is what Apply answers, not a failure of this question.
 */
export function policyWarningsRoutes(deps: { manager: ReadOnlyResourceManager }): Route[] {
  return [
    {
      method: 'POST',
      path: '/meshes/:mesh/_policy-warnings',
      handler: async ({ params, body }) => {
        const mesh = params.mesh!;
        const text = await body();
        let policy;
        try {
          await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: mesh }));
          const raw = parseBody('policy', text);
          const type = (raw as { type?: unknown } | null)?.type;
          if (typeof type !== 'string' || !isPolicyType(type)) {
            throw new ApiError(400, 'Bad Request', `warnings are for one policy, got ${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}`, [
              { field: 'type', message: 'must be a policy type (GET /_resources lists them)' },
            ]);
          }
          const input = await titled('Could not process a resource', async () => validateResource(raw, { type, mesh }));
          policy = asPolicy(input, undefined);
        } catch (error) {
          if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 404)) throw error;
          const refusal = { status: error.status, title: error.title, detail: error.message };
          return { json: { warnings: [], findings: [], refusal } satisfies PolicyWarningsBody };
        }
        return { json: (await checkPolicyNow(deps.manager, policy)) satisfies PolicyWarningsBody };
      },
    },
  ];
}
