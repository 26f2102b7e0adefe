import type { MeshAnalysis } from '../../shared/analysis-types.js';
import { isPolicyType } from '../../shared/policy-types.js';
import { analyzeMesh } from '../analysis/analyze-mesh.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { parseResourceDocuments } from '../resources/parse.js';
import { validateResource } from '../resources/validate.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { withPolicyChange } from '../xds/context/with-policy-change.js';
import { ApiError, titled } from './api-error.js';
import { asPolicy } from './policy-preview-routes.js';
import type { Route } from './router.js';

export interface AnalysisDependencies {
  manager: ReadOnlyResourceManager;
  meshContexts: { get(mesh: string): Promise<MeshContext> };
}

/**
 * `GET /meshes/{mesh}/_analysis`: what will not work in the mesh as it is (docs/analysis.md).
 * `POST` the same path with policies (YAML documents separated by `---`, or JSON; each as `PUT`
 * takes it): the analysis of the mesh as it would be with them applied. Nothing is written.
 */
export function analysisRoutes(deps: AnalysisDependencies): Route[] {
  const contextOf = async (mesh: string) => {
    // meshdesk's own route: the answer names the mesh (Kuma's titled answer would say only "Not found").
    await deps.manager.get('Mesh', { mesh: '', name: mesh });
    return deps.meshContexts.get(mesh);
  };
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/_analysis',
      handler: async ({ params }) => ({ json: analyzeMesh(await contextOf(params.mesh!)) satisfies MeshAnalysis }),
    },
    {
      method: 'POST',
      path: '/meshes/:mesh/_analysis',
      handler: async ({ params, body }) => {
        const mesh = params.mesh!;
        let context = await contextOf(mesh);
        const documents = await titled('Could not process a resource', async () => parseResourceDocuments(await body()));
        if (documents.length === 0) throw new ApiError(400, 'Bad Request', 'the body holds no resource: send the policies to analyze, as PUT takes them');
        for (const [index, raw] of documents.entries()) {
          const type = (raw as { type?: unknown } | null)?.type;
          if (typeof type !== 'string' || !isPolicyType(type)) {
            throw new ApiError(400, 'Bad Request', `document ${index + 1} is ${type === undefined ? 'without a type' : `a ${JSON.stringify(type)}`}: an analysis before applying takes policies only`, [
              { field: `[${index}].type`, message: 'must be a policy type (GET /_resources lists them); apply Meshes and Dataplanes first' },
            ]);
          }
          const input = await titled(`Could not process document ${index + 1}`, async () => validateResource(raw, { type, mesh }));
          const current = context.policies.find((policy) => policy.type === type && policy.meta.name === input.name);
          context = withPolicyChange(context, { apply: asPolicy(input, current) });
        }
        return { json: analyzeMesh(context) satisfies MeshAnalysis };
      },
    },
  ];
}
