import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { DataplaneResource, ResourceInput } from '../../shared/resources.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { computeLabels, ZONE_NAME } from '../resources/computed-labels.js';
import type { ConnectedProxy } from '../xds/callbacks/proxy-callbacks.js';
import { everyPolicy, type MeshContext } from '../xds/context/mesh-context.js';
import type { PolicyChange } from '../xds/context/with-policy-change.js';
import { titled } from './api-error.js';
import type { BodyReaderPool } from './body-reading/body-reader-pool.js';
import { previewPolicyChange } from './policy-preview.js';
import type { Route } from './router.js';
import type { Proxy } from '../xds/generate/proxy.js';

export interface PolicyPreviewDependencies {
  manager: ReadOnlyResourceManager;
  meshContexts: { get(mesh: string): Promise<MeshContext> };
  bodyReader: BodyReaderPool;
  /** The connected proxies (DataplaneSyncTracker): a preview generates for the proxy's own kind and features. */
  connectedProxies: { connectedProxy(proxyId: string): Pick<ConnectedProxy, 'kind' | 'features' | 'workDir' | 'userAgent'> | undefined };
}

/**
 * `POST /meshes/{mesh}/dataplanes/{name}/_preview-policy`: the body is a policy as `PUT` takes it
 * (YAML or JSON, validated the same way, with the same 400 naming the fields); the answer is what
 * applying it would change in the proxy's configuration. `?delete=true`: what deleting the policy
 * the body names (by type and name) would change. Pure generation: nothing is written or sent.
 * A proxy that is not connected is previewed as an Envoy proxy.
 */
export function policyPreviewRoutes(deps: PolicyPreviewDependencies): Route[] {
  return [
    {
      method: 'POST',
      path: '/meshes/:mesh/dataplanes/:name/_preview-policy',
      handler: async ({ params, query, body }) => {
        const mesh = params.mesh!;
        const dataplane = await titled('Could not retrieve Dataplane', () => deps.manager.get('Dataplane', { mesh, name: params.name! }));
        const text = await body();
        const input = await titled('Could not process a resource', () => deps.bodyReader.read('policy', text, { mesh }));
        const type = input.type as PolicyResource['type'];
        const context = await deps.meshContexts.get(mesh);
        const current = everyPolicy(context).find((policy) => policy.type === type && policy.meta.name === input.name);
        const change: PolicyChange =
          query.get('delete') === 'true'
            ? { remove: { type, name: input.name } }
            : { apply: asPolicy(input, current) };
        return { json: previewPolicyChange(context, proxyOf(deps, dataplane), change) };
      },
    },
  ];
}

/** The proxy of `dataplane` as generation sees it: its connection's kind and features, or an Envoy proxy when it is not connected. */
export function proxyOf(deps: Pick<PolicyPreviewDependencies, 'connectedProxies'>, dataplane: DataplaneResource): Proxy {
  const id = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
  const connected = deps.connectedProxies.connectedProxy(id);
  return {
    id,
    dataplane,
    kind: connected?.kind ?? 'envoy',
    ...(connected?.features && { features: connected.features }),
    ...(connected?.workDir !== undefined && { workDir: connected.workDir }),
    ...(connected?.userAgent !== undefined && { userAgent: connected.userAgent }),
  };
}

/** The policy as the store would hold it after the write: the labels the API computes, the next version. */
export function asPolicy(input: ResourceInput, current: PolicyResource | undefined): PolicyResource {
  const time = new Date().toISOString();
  return {
    type: input.type as PolicyResource['type'],
    meta: {
      mesh: input.mesh,
      name: input.name,
      version: (current?.meta.version ?? 0) + 1,
      labels: computeLabels(input, ZONE_NAME),
      creationTime: current?.meta.creationTime ?? time,
      modificationTime: time,
    },
    spec: input.spec as PolicyResource['spec'],
  };
}
