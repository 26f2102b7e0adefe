import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { POLICY_DESCRIPTORS } from '../policies/descriptors.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import type { PolicyEffects } from '../xds/status/policy-effects.js';
import { ApiError, titled } from './api-error.js';
import { dataplanesForPolicy, inspectRules } from './policy-inspection.js';
import type { Route } from './router.js';
import { readShadowParameter } from './shadow-parameter.js';
import { withShadowApplied } from '../policies/shadow/shadow-context.js';

export interface PolicyInspectionDependencies {
  manager: ReadOnlyResourceManager;
  /** The MeshContexts proxies are generated from (MeshContextCache): the rules shown are the rules applied. */
  meshContexts: { get(mesh: string): Promise<MeshContext> };
  policyEffects: Pick<PolicyEffects, 'get'>;
}

/**
 * What policies do to proxies. Kuma's paths and shapes:
 * - `GET /meshes/{mesh}/dataplanes/{name}/_rules`: the rules each policy type computes for the proxy
 *   (meshdesk's `?shadow=true`, as Kuma's `_config` takes it: with the shadow policies applied);
 * - `GET /meshes/{mesh}/{policies}/{name}/_resources/dataplanes`: the Dataplanes a policy selects.
 * And meshdesk's own `GET /meshes/{mesh}/dataplanes/{name}/_policy-effects`: the config fields
 * each policy set on the proxy as last generated, and what the proxy could not apply.
 */
export function policyInspectionRoutes(deps: PolicyInspectionDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/_rules',
      handler: async ({ params, query }) => {
        await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: params.mesh! }));
        const shadow = readShadowParameter(query);
        const dataplane = await titled('Could not retrieve Dataplane', () => deps.manager.get('Dataplane', { mesh: params.mesh!, name: params.name! }));
        const context = await deps.meshContexts.get(params.mesh!);
        return { json: inspectRules(shadow ? withShadowApplied(context) : context, dataplane) };
      },
    },
    ...POLICY_DESCRIPTORS.map(
      (descriptor): Route => ({
        method: 'GET',
        path: `/meshes/:mesh/${descriptor.path}/:name/_resources/dataplanes`,
        handler: async ({ params, query }) => {
          await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: params.mesh! }));
          // A shadow policy's Dataplanes are those it would select if it were live.
          const context = withShadowApplied(await deps.meshContexts.get(params.mesh!));
          const policy = context.policies.find((each) => each.type === descriptor.type && each.meta.name === params.name);
          if (!policy) throw new ApiError(404, 'Could not retrieve policy', 'Not found');
          return { json: dataplanesForPolicy(context, policy, query.get('name') ?? '') };
        },
      }),
    ),
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/_policy-effects',
      handler: ({ params }) => {
        const proxyId = `${params.mesh}.${params.name}`;
        const effects = deps.policyEffects.get(proxyId);
        if (!effects) {
          throw new ApiError(404, 'Could not find a proxy', `proxy "${proxyId}" has no configuration: it is not connected, or its Dataplane was not found when generating it`);
        }
        return { json: effects };
      },
    },
  ];
}
